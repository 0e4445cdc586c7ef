/**
 * What `<module>@latest` resolves to from a module proxy (src/import/go-module/latest-version.ts):
 * semantic version precedence, releases before pre-releases, the proxy's @latest only when the
 * list has nothing, versions that do not fit the path passed over, and retractions.
 */
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  parseRetractions,
  resolveLatestVersion,
  type LatestSources,
} from '../../../src/import/go-module/latest-version.js';

const sources = (
  list: string,
  goMods: Record<string, string> = {},
  latest?: string,
): LatestSources & { mods: string[] } => {
  const mods: string[] = [];
  return {
    mods,
    list: () => Promise.resolve(list),
    latest: () => Promise.resolve(latest),
    goMod: (version) => {
      mods.push(version);
      return Promise.resolve(goMods[version] ?? 'module example.com/m\n');
    },
  };
};

describe('@latest of a Go module', () => {
  it('orders versions by semantic version precedence', () => {
    const ordered = [
      'v1.0.0-alpha',
      'v1.0.0-alpha.1',
      'v1.0.0-alpha.beta',
      'v1.0.0-beta',
      'v1.0.0-beta.2',
      'v1.0.0-beta.11',
      'v1.0.0-rc.1',
      'v1.0.0',
      'v1.0.1',
      'v1.2.0',
      'v1.10.0',
      'v2.0.0+incompatible',
      'v10.0.0',
    ];
    for (let i = 0; i < ordered.length; i++)
      for (let j = 0; j < ordered.length; j++)
        expect(Math.sign(compareVersions(ordered[i]!, ordered[j]!)), `${ordered[i]} vs ${ordered[j]}`).toBe(
          Math.sign(i - j),
        );
    expect(compareVersions('v1.0.0+meta', 'v1.0.0')).toBe(0);
  });

  it('reads retract directives: single versions, ranges, blocks, comments and quotes', () => {
    expect(
      parseRetractions(
        'module example.com/m\n\nretract v1.0.1 // oops\nretract [v1.1.0, v1.1.9]\nretract (\n\t"v0.9.0"\n\t[v0.1.0, v0.2.0] // old\n)\nrequire example.com/x v1.0.0\n',
      ),
    ).toEqual([
      { low: 'v1.0.1', high: 'v1.0.1' },
      { low: 'v1.1.0', high: 'v1.1.9' },
      { low: 'v0.9.0', high: 'v0.9.0' },
      { low: 'v0.1.0', high: 'v0.2.0' },
    ]);
  });

  it.each([
    ['the highest release, above pre-releases and in numeric order', 'v1.9.0\nv1.10.0\nv1.11.0-rc.1\n', 'v1.10.0'],
    [
      'the highest pre-release when there is no release',
      'v0.1.0-alpha\nv0.1.0-beta.2\nv0.1.0-beta.10\n',
      'v0.1.0-beta.10',
    ],
    [
      'no pseudo-version of the list, no +incompatible when a compatible version exists',
      'v1.2.0\nv1.3.0-0.20260101000000-abcdefabcdef\nv3.0.0+incompatible\n',
      'v1.2.0',
    ],
    [
      'a +incompatible version when it is all there is',
      'v2.0.0+incompatible\nv3.1.0+incompatible\n',
      'v3.1.0+incompatible',
    ],
    [
      'the first field of each line, and nothing that is not a version',
      'v1.0.0 2026-01-01T00:00:00Z\nlatest\n\n',
      'v1.0.0',
    ],
  ])('takes %s', async (_, list, want) => {
    expect(await resolveLatestVersion('example.com/m', sources(list))).toBe(want);
  });

  it("takes only the path's major: /v2 serves v2.x.y", async () => {
    expect(await resolveLatestVersion('example.com/m/v2', sources('v1.5.0\nv2.1.0\nv2.2.0-rc.1\nv3.0.0\n'))).toBe(
      'v2.1.0',
    );
    expect(await resolveLatestVersion('gopkg.in/yaml.v3', sources('v2.4.0\nv3.0.1\n'))).toBe('v3.0.1');
  });

  it("passes over the versions the highest version's go.mod retracts", async () => {
    const src = sources('v1.0.0\nv1.1.0\nv1.2.0\n', {
      'v1.2.0': 'module example.com/m\nretract [v1.1.0, v1.2.0] // broken\n',
    });
    expect(await resolveLatestVersion('example.com/m', src)).toBe('v1.0.0');
    expect(src.mods).toEqual(['v1.2.0']);
    await expect(
      resolveLatestVersion(
        'example.com/m',
        sources('v1.2.0\n', { 'v1.2.0': 'module example.com/m\nretract v1.2.0\n' }),
      ),
    ).rejects.toThrow("example.com/m: every version the module proxy lists is retracted by v1.2.0's go.mod");
  });

  it("asks the proxy's @latest only when the list has no version, and says so when it has none either", async () => {
    expect(await resolveLatestVersion('example.com/m', sources('', {}, 'v0.0.0-20260101000000-abcdefabcdef'))).toBe(
      'v0.0.0-20260101000000-abcdefabcdef',
    );
    await expect(resolveLatestVersion('example.com/m', sources(''))).rejects.toThrow(
      'example.com/m: the module proxy has no version of it',
    );
  });
});
