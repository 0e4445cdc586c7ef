import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UnresolvedTypeError } from '../../src/schema/errors.js';
import { loadApiModel } from '../../src/schema/model.js';
import { OpenApiConverter } from '../../src/schema/to-openapi.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

/** The spec schema of a one-kind project whose spec interface has `body` as members. */
async function specSchema(body: string, imports = 'int32') {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-openapi-'));
  dirs.push(root);
  const dir = path.join(root, 'api', 'x', 'v1');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, 'types.ts'),
    `// +groupName=x.example.com\n\nimport type { ObjectMeta, ${imports} } from 'kop/api';\n\nexport interface Spec {\n${body}\n}\n\n/** +kubebuilder:object:root=true */\nexport interface Thing { metadata?: ObjectMeta; spec?: Spec }\n`,
  );
  const model = await loadApiModel(root);
  const converter = new OpenApiConverter(model);
  return converter.kindSchema(model.kinds[0]!.versions[0]!).properties!.spec!;
}

describe('OpenApiConverter (forms Go cannot express)', () => {
  it('inlines object literals and intersections', async () => {
    const spec = await specSchema('  /** Box doc. */\n  box?: { width: int32; height?: int32 } & { depth?: int32 };');
    expect(spec.properties!.box).toEqual({
      type: 'object',
      description: 'Box doc.',
      properties: {
        depth: { type: 'integer', format: 'int32' },
        height: { type: 'integer', format: 'int32' },
        width: { type: 'integer', format: 'int32' },
      },
      required: ['width'],
    });
  });

  it('maps literal unions of numbers and booleans, and strips null and undefined', async () => {
    const spec = await specSchema(
      "  level?: 1 | 2 | 3;\n  flag?: true | false;\n  name?: string | null | undefined;\n  kind?: 'only';",
    );
    expect(spec.properties).toMatchObject({
      level: { type: 'integer', enum: [1, 2, 3] },
      name: { type: 'string' },
      kind: { type: 'string', enum: ['only'] },
    });
  });

  it('reads TypeScript enums with literal values as enums', async () => {
    const spec = await specSchema(
      "  mode?: Mode;\n}\n\n/** Mode of operation. */\nexport enum Mode {\n  Fast = 'fast',\n  Slow = 'slow',",
    );
    expect(spec.properties!.mode).toEqual({
      type: 'string',
      enum: ['fast', 'slow'],
      description: 'Mode of operation.',
    });
  });

  it('reads an interface with only an index signature as a map, and refuses mixing', async () => {
    const spec = await specSchema(
      '  labels?: Labels;\n}\n\n/** Labels by key. */\nexport interface Labels {\n  [key: string]: string;',
    );
    expect(spec.properties!.labels).toEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Labels by key.',
    });
    await expect(specSchema('  mixed?: { a?: string; [key: string]: string };')).rejects.toThrow(
      /mixes properties with an index signature/,
    );
  });

  it('reads true | false as boolean', async () => {
    expect((await specSchema('  flag?: true | false;')).properties!.flag).toEqual({ type: 'boolean' });
  });

  it('reports a kop/api name without a schema', async () => {
    await expect(specSchema('  x?: NoSuchType;', 'NoSuchType')).rejects.toThrow(UnresolvedTypeError);
  });
});
