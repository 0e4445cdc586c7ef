// The import corpus (test/import/corpus/SOURCES.md): published CRDs fetched from the Go module
// proxy, each checked against the hash SOURCES.md names. Used by the corpus test and the
// import benchmark; `node hack/import-corpus.mjs` fetches the missing files and prints where
// they are.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, readFile, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const CORPUS_DIR = fileURLToPath(new URL('../test/import/corpus/', import.meta.url));

/** The rows of SOURCES.md's table. */
export function corpusEntries() {
  return readFileSync(path.join(CORPUS_DIR, 'SOURCES.md'), 'utf8')
    .split('\n')
    .filter((line) => /^\| [\w.-]+\.yaml \|/.test(line))
    .map((row) => {
      const [file, module, version, sourcePath, licence, use, sha256] = row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return {
        file,
        path: path.join(CORPUS_DIR, file),
        module,
        version,
        sourcePath,
        licence,
        own: use.startsWith('own'),
        rawSchema: use.includes('--raw-schema'),
        sha256,
      };
    });
}

const sha256Prefix = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** Whether the corpus file is there and is the one SOURCES.md names. */
async function isFetched(entry) {
  if (!existsSync(entry.path)) return false;
  return sha256Prefix(await readFile(entry.path)) === entry.sha256;
}

/** The module's folder in the Go module cache, downloaded through the module proxy if needed. */
async function moduleDir(module, version) {
  let stdout;
  try {
    ({ stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', `${module}@${version}`], {
      maxBuffer: 4 * 1024 * 1024,
    }));
  } catch (error) {
    // go prints its JSON (with an Error field) on stdout even when it fails.
    const reason =
      error.code === 'ENOENT'
        ? 'the go command is not on PATH (the corpus comes from the Go module proxy)'
        : (JSON.parse(error.stdout || '{}').Error ?? error.message);
    throw new Error(`import corpus: cannot download ${module}@${version}: ${reason}`, { cause: error });
  }
  return JSON.parse(stdout).Dir;
}

/**
 * Puts every missing corpus file into test/import/corpus from its Go module and checks each
 * file's hash. Returns the entries. Throws, naming the file, when a download fails or a file
 * is not the one SOURCES.md names (it is removed then, so a rerun fetches it again).
 */
export async function fetchImportCorpus({ log = () => {} } = {}) {
  const entries = corpusEntries();
  const dirs = new Map();
  for (const entry of entries) {
    if (await isFetched(entry)) continue;
    const key = `${entry.module}@${entry.version}`;
    if (!dirs.has(key)) {
      log(`go mod download ${key}`);
      dirs.set(key, await moduleDir(entry.module, entry.version));
    }
    await copyFile(path.join(dirs.get(key), entry.sourcePath), entry.path);
    if (!(await isFetched(entry))) {
      await rm(entry.path, { force: true });
      throw new Error(
        `import corpus: ${entry.file} (${entry.sourcePath} in ${key}) does not have the SHA-256 that SOURCES.md names (${entry.sha256}…)`,
      );
    }
  }
  return entries;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const entries = await fetchImportCorpus({ log: (line) => console.error(line) });
    console.log(`${entries.length} corpus files in ${path.relative(process.cwd(), CORPUS_DIR) || '.'}, hashes checked`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
