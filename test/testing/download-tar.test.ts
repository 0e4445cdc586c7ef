import { describe, expect, it } from 'vitest';
import { readTar, TarFormatError, type TarEntry } from '../../src/testing/tar.js';
import { tarArchive, tarHeader } from './envtest-download-fixtures.js';

/** Reads an archive fed in chunks of `chunkSize` bytes; returns each entry with its data. */
async function read(archive: Buffer, chunkSize = archive.length): Promise<Array<TarEntry & { data: string }>> {
  async function* chunks() {
    for (let offset = 0; offset < archive.length; offset += chunkSize)
      yield archive.subarray(offset, offset + chunkSize);
  }
  const entries: Array<TarEntry & { data: string }> = [];
  await readTar(chunks(), (entry) => {
    const parts: Buffer[] = [];
    const record = { ...entry, data: '' };
    entries.push(record);
    return {
      write: (chunk) => parts.push(Buffer.from(chunk)),
      end: () => (record.data = Buffer.concat(parts).toString()),
    };
  });
  return entries;
}

describe('readTar', () => {
  const longName = `${'deep/'.repeat(30)}kubectl`;
  const archive = tarArchive([
    { path: 'controller-tools/envtest/', type: 'directory' },
    { path: 'controller-tools/envtest/etcd', body: 'x'.repeat(700), mode: 0o750 },
    { path: 'link', type: 'symlink', linkTarget: '/etc/passwd' },
    { path: longName, body: 'pax', paxPath: true },
    { path: longName, body: 'gnu', gnuLongName: true },
    { path: 'empty', body: '' },
  ]);

  it.each([1, 7, 512, 100_000])(
    'reads every entry, with pax and GNU long names, fed %i bytes at a time',
    async (chunkSize) => {
      const entries = await read(archive, chunkSize);
      expect(
        entries.map(({ path, type, size, mode, linkTarget, data }) => ({ path, type, size, mode, linkTarget, data })),
      ).toEqual([
        { path: 'controller-tools/envtest/', type: 'directory', size: 0, mode: 0o755, linkTarget: '', data: '' },
        {
          path: 'controller-tools/envtest/etcd',
          type: 'file',
          size: 700,
          mode: 0o750,
          linkTarget: '',
          data: 'x'.repeat(700),
        },
        { path: 'link', type: 'symlink', size: 0, mode: 0o755, linkTarget: '/etc/passwd', data: '' },
        { path: longName, type: 'file', size: 3, mode: 0o755, linkTarget: '', data: 'pax' },
        { path: longName, type: 'file', size: 3, mode: 0o755, linkTarget: '', data: 'gnu' },
        { path: 'empty', type: 'file', size: 0, mode: 0o755, linkTarget: '', data: '' },
      ]);
    },
  );

  it('reads sizes in base-256 and joins the ustar prefix', async () => {
    const header = tarHeader({ name: 'kube-apiserver', size: 5, typeflag: '0', mode: 0o755, base256Size: true });
    const prefixed = tarHeader({ name: 'etcd', size: 0, typeflag: '0', mode: 0o755 });
    prefixed.write('controller-tools/envtest', 345, 'latin1');
    prefixed.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of prefixed) sum += byte;
    prefixed.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    const entries = await read(
      Buffer.concat([header, Buffer.from('hello'), Buffer.alloc(507), prefixed, Buffer.alloc(1024)]),
    );
    expect(entries.map((entry) => [entry.path, entry.data])).toEqual([
      ['kube-apiserver', 'hello'],
      ['controller-tools/envtest/etcd', ''],
    ]);
  });

  const broken: Array<[string, Buffer, RegExp]> = [
    [
      'cut in the middle of an entry',
      archive.subarray(0, 512 + 512 + 100),
      /ends in the middle of an entry: it is truncated/,
    ],
    [
      'cut between entries, before the end marker',
      tarArchive([{ path: 'a', body: 'a' }], { endMarker: false }),
      /ends without its end-of-archive marker/,
    ],
    [
      'a header with a wrong checksum',
      Buffer.concat([Buffer.from(archive.subarray(0, 512)).fill(0x41, 0, 5), archive.subarray(512)]),
      /header checksum mismatch/,
    ],
    ['an empty stream', Buffer.alloc(0), /truncated/],
  ];
  it.each(broken)('refuses an archive %s', async (_name, bytes, message) => {
    const failure = await read(bytes, 100).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TarFormatError);
    expect((failure as Error).message).toMatch(message);
  });
});
