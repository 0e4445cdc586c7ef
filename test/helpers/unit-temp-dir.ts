import { accessSync, constants, statSync } from 'node:fs';

/**
 * The folder the unit project's tests make their temporary folders in (vitest.config.ts sets it as
 * TMPDIR, which os.tmpdir() reads): /dev/shm, a memory file system, where Linux has one we may
 * write. The unit tests scaffold, copy and remove thousands of small projects' files; on a disk file
 * system every create and unlink goes through the journal, and the tests spent more time waiting
 * for that than running (45 copies and removals of a 60-file project: 10 s on ext4, 1.2 s in
 * /dev/shm). A TMPDIR given by whoever runs the tests wins; elsewhere it is the system's default.
 */
export function unitTempDir(): string | undefined {
  if (process.env.TMPDIR) return undefined;
  try {
    if (!statSync('/dev/shm').isDirectory()) return undefined;
    accessSync('/dev/shm', constants.W_OK | constants.X_OK);
    return '/dev/shm';
  } catch {
    return undefined;
  }
}
