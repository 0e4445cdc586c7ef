import { closeSync, mkdirSync, openSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DevLoop, type ChangeSet } from '../../src/dev/dev-loop.js';
import { classifyChange, ProjectWatcher } from '../../src/dev/project-watcher.js';
import { describeChanges, formatDuration, statusLine } from '../../src/dev/status-line.js';

/** A runCycle fake that records each change set and finishes when the test says so. */
function recordingCycles() {
  const cycles: ChangeSet[] = [];
  const finishers: Array<() => void> = [];
  let running = 0;
  let maxRunning = 0;
  return {
    cycles,
    get maxRunning() {
      return maxRunning;
    },
    runCycle(changes: ChangeSet): Promise<void> {
      cycles.push(changes);
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      return new Promise((resolve) =>
        finishers.push(() => {
          running -= 1;
          resolve();
        }),
      );
    },
    /** Ends the oldest running cycle. */
    finish(): void {
      finishers.shift()?.();
    },
  };
}

describe('DevLoop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('turns a burst of events into one cycle after the quiet time, with each file once', async () => {
    const fake = recordingCycles();
    const loop = new DevLoop({ runCycle: (c) => fake.runCycle(c), quietMs: 100 });
    loop.notify('src', 'src/a.ts');
    await vi.advanceTimersByTimeAsync(60);
    loop.notify('src', 'src/a.ts');
    loop.notify('api', 'api/v1/x.types.ts');
    await vi.advanceTimersByTimeAsync(99);
    expect(fake.cycles).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.cycles).toEqual([{ api: ['api/v1/x.types.ts'], src: ['src/a.ts'] }]);
    fake.finish();
    await loop.idle();
    expect(loop.cycleCount).toBe(1);
  });

  it('starts a cycle after maxWaitMs even when the events never stop', async () => {
    const fake = recordingCycles();
    const loop = new DevLoop({ runCycle: (c) => fake.runCycle(c), quietMs: 100, maxWaitMs: 300 });
    for (let t = 0; t <= 400; t += 40) {
      loop.notify('src', `src/f${t}.ts`);
      await vi.advanceTimersByTimeAsync(40);
    }
    // Events every 40 ms never leave 100 ms of quiet: the cycle starts 300 ms after the first one.
    expect(fake.cycles).toHaveLength(1);
    expect(fake.cycles[0]!.src).toHaveLength(8);
    expect(fake.cycles[0]!.src).toContain('src/f280.ts');
  });

  it('never runs two cycles at once, and gathers events that come during a cycle into the next one', async () => {
    const fake = recordingCycles();
    const loop = new DevLoop({ runCycle: (c) => fake.runCycle(c), quietMs: 50 });
    loop.notify('src', 'src/a.ts');
    await vi.advanceTimersByTimeAsync(50);
    expect(fake.cycles).toHaveLength(1);
    // While the first cycle runs (a slow generate), two bursts come and go quiet.
    loop.notify('api', 'api/v1/x.types.ts');
    await vi.advanceTimersByTimeAsync(200);
    loop.notify('src', 'src/b.ts');
    await vi.advanceTimersByTimeAsync(200);
    expect(fake.cycles).toHaveLength(1);
    fake.finish();
    await vi.advanceTimersByTimeAsync(0);
    // Their quiet time is over: the next cycle starts at once, with both.
    expect(fake.cycles).toHaveLength(2);
    expect(fake.cycles[1]).toEqual({ api: ['api/v1/x.types.ts'], src: ['src/b.ts'] });
    fake.finish();
    await loop.idle();
    expect(fake.maxRunning).toBe(1);
  });

  it('waits for the quiet time of an event that came just before the running cycle ended', async () => {
    const fake = recordingCycles();
    const loop = new DevLoop({ runCycle: (c) => fake.runCycle(c), quietMs: 100 });
    loop.notify('src', 'src/a.ts');
    await vi.advanceTimersByTimeAsync(100);
    loop.notify('src', 'src/b.ts');
    await vi.advanceTimersByTimeAsync(10);
    fake.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.cycles).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(90);
    expect(fake.cycles).toHaveLength(2);
    expect(fake.cycles[1]!.src).toEqual(['src/b.ts']);
  });

  it('reports a failed cycle and goes on with the next change', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const loop = new DevLoop({
      quietMs: 10,
      onError: (error) => errors.push(error),
      runCycle: async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
      },
    });
    loop.notify('src', 'src/a.ts');
    await vi.advanceTimersByTimeAsync(10);
    await loop.idle();
    loop.notify('src', 'src/a.ts');
    await vi.advanceTimersByTimeAsync(10);
    await loop.idle();
    expect(calls).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
  });

  it('after close(), waits for the running cycle and starts no other', async () => {
    const fake = recordingCycles();
    const loop = new DevLoop({ runCycle: (c) => fake.runCycle(c), quietMs: 10 });
    loop.notify('src', 'src/a.ts');
    await vi.advanceTimersByTimeAsync(10);
    loop.notify('src', 'src/b.ts');
    let closed = false;
    const closing = loop.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(50);
    expect(closed).toBe(false);
    fake.finish();
    await closing;
    loop.notify('src', 'src/c.ts');
    await vi.advanceTimersByTimeAsync(50);
    expect(fake.cycles).toHaveLength(1);
  });
});

describe('classifyChange', () => {
  const generated = new Set(['api/cache/v1/redis.client.ts']);
  it.each([
    { given: 'api/cache/v1/redis.types.ts', want: 'api' },
    { given: 'api/cache/v1/groupversion.ts', want: 'api' },
    { given: 'api/cache/v1/redis.client.ts', want: undefined }, // kop generate's own output
    { given: 'api/cache/v1/notes.md', want: undefined },
    { given: 'api/cache/v1/x.d.ts', want: undefined },
    { given: 'src/controllers/redis.controller.ts', want: 'src' },
    { given: 'src/config.json', want: 'src' },
    { given: 'src/main.ts', want: 'src' },
    { given: 'src/.main.ts.swp', want: undefined },
    { given: 'src/main.ts~', want: undefined },
    { given: 'src/4913', want: undefined }, // vim's probe file
    { given: 'test/flags.test.ts', want: undefined },
    { given: 'config/crd/bases/x.yaml', want: undefined },
  ])('$given -> $want', ({ given, want }) => {
    expect(classifyChange(given, generated)).toBe(want);
  });
});

describe('status lines', () => {
  it('formats durations, changes and the line', () => {
    expect(formatDuration(7.6)).toBe('8 ms');
    expect(formatDuration(999)).toBe('999 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(12_345)).toBe('12.3 s');
    expect(describeChanges({ api: ['api/v1/a.types.ts'], src: ['src/b.ts', 'src/c.ts'] })).toBe(
      'api/v1/a.types.ts and 2 more changed',
    );
    expect(describeChanges({ api: [], src: ['src/b.ts'] })).toBe('src/b.ts changed');
    expect(statusLine(new Date(2026, 0, 2, 3, 4, 5), ['a', '', 'b'])).toBe('[kop dev 03:04:05] a · b');
  });
});

describe('ProjectWatcher', () => {
  let root: string;
  let watcher: ProjectWatcher | undefined;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'kop-dev-watch-'));
    mkdirSync(path.join(root, 'src/controllers'), { recursive: true });
    writeFileSync(path.join(root, 'src/main.ts'), 'export {};\n');
  });
  afterEach(async () => {
    watcher?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Waits until `file` was reported `times` times (or fails after 5 s). */
  async function waitFor(changes: string[], file: string, times: number): Promise<void> {
    const deadline = Date.now() + 5_000;
    const seen = () => changes.filter((change) => change === file).length;
    while (seen() < times && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await watcher!.settled();
    expect(seen(), changes.join(', ')).toBe(times);
  }

  it('reports content changes, new files in new folders and deletions, and ignores rewrites of the same content', async () => {
    const changes: string[] = [];
    watcher = await ProjectWatcher.start({ root, folders: ['src', 'api'], onChange: (file) => changes.push(file) });
    // Same content: no change.
    writeFileSync(path.join(root, 'src/main.ts'), 'export {};\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await watcher.settled();
    expect(changes).toEqual([]);

    writeFileSync(path.join(root, 'src/main.ts'), 'export const x = 1;\n');
    await waitFor(changes, 'src/main.ts', 1);

    // An editor's atomic save: write a temp file, rename it over the original.
    writeFileSync(path.join(root, 'src/.main.ts.tmp'), 'export const x = 2;\n');
    renameSync(path.join(root, 'src/.main.ts.tmp'), path.join(root, 'src/main.ts'));
    await waitFor(changes, 'src/main.ts', 2);

    mkdirSync(path.join(root, 'src/webhooks/cache'), { recursive: true });
    writeFileSync(path.join(root, 'src/webhooks/cache/x.ts'), 'export {};\n');
    await waitFor(changes, 'src/webhooks/cache/x.ts', 1);

    unlinkSync(path.join(root, 'src/webhooks/cache/x.ts'));
    await waitFor(changes, 'src/webhooks/cache/x.ts', 2);

    // api/ did not exist at the start: it is not watched (and no error).
    expect(changes.every((file) => file.startsWith('src/'))).toBe(true);
  });

  /**
   * The ways editors and tools save `file` with `content`. The saves stand for another process's,
   * so they are synchronous: a save through fs/promises is jobs on libuv's thread pool (the
   * truncation when the file opens, then the bytes), and in vitest's worker threads that pool is
   * shared with the test files running beside this one; a busy neighbour held the bytes back
   * past the watcher's quiet time now and then, and the watcher rightly reported the empty file
   * in between, one change too many. The save in two steps below keeps that case, on purpose
   * and within the quiet time.
   */
  const saves: Array<{ name: string; save(file: string, content: string): Promise<void> }> = [
    { name: 'in place', save: async (file, content) => writeFileSync(file, content) },
    {
      name: 'in place in two steps, the bytes a moment after the truncation',
      async save(file, content) {
        const fd = openSync(file, 'w');
        try {
          // Shorter than the watcher's quiet time (30 ms). Timers of one thread run in the order
          // they expire, so this one runs before the watcher's for the truncation, however late.
          await new Promise((resolve) => setTimeout(resolve, 5));
          writeSync(fd, content);
        } finally {
          closeSync(fd);
        }
      },
    },
    {
      name: 'rename over (JetBrains safe write, many vim setups)',
      async save(file, content) {
        writeFileSync(`${file}.kop-tmp`, content);
        renameSync(`${file}.kop-tmp`, file);
      },
    },
    {
      name: 'sed -i',
      async save(file, content) {
        // sed writes a temporary file beside the original and renames it over.
        writeFileSync(file, content.replace(/\d+/, 'NUMBER'));
        execFileSync('sed', ['-i', `s/NUMBER/${/\d+/.exec(content)![0]}/`, file]);
      },
    },
    {
      name: 'delete and recreate',
      async save(file, content) {
        unlinkSync(file);
        writeFileSync(file, content);
      },
    },
    {
      name: 'rename the original away, write a new file (vim with a backup)',
      async save(file, content) {
        renameSync(file, `${file}~`);
        writeFileSync(file, content);
        unlinkSync(`${file}~`);
      },
    },
  ];

  for (const { name, save } of saves) {
    it(`sees every save of a file, saved ${name}, and in place after it`, async () => {
      const changes: string[] = [];
      watcher = await ProjectWatcher.start({ root, folders: ['src'], onChange: (file) => changes.push(file) });
      for (const [index, file] of ['src/main.ts', 'src/controllers/thing.ts'].entries()) {
        if (index === 1) writeFileSync(path.join(root, file), 'export const v = 0;\n');
        const base = index === 1 ? 1 : 0;
        await waitFor(changes, file, base);
        for (let round = 1; round <= 3; round++) {
          await save(path.join(root, file), `export const v = ${round};\n`);
          await waitFor(changes, file, base + round);
        }
        writeFileSync(path.join(root, file), 'export const v = 4;\n');
        await waitFor(changes, file, base + 4);
      }
      // The editors' temporary files came and went: nothing else was reported.
      expect(new Set(changes)).toEqual(new Set(['src/main.ts', 'src/controllers/thing.ts']));
    });
  }

  it('ends a burst of saves, in place and by rename, knowing the last content, and keeps watching', async () => {
    const changes: string[] = [];
    watcher = await ProjectWatcher.start({ root, folders: ['src'], onChange: (file) => changes.push(file) });
    for (let round = 1; round <= 20; round++) {
      if (round % 2 === 0) writeFileSync(path.join(root, 'src/main.ts'), `export const v = ${round};\n`);
      else await saves[2]!.save(path.join(root, 'src/main.ts'), `export const v = ${round};\n`);
    }
    // Events that pause for less than the quiet time are one report; a slow machine may pause longer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await watcher.settled();
    const afterBurst = changes.length;
    expect(afterBurst).toBeGreaterThanOrEqual(1);
    expect(new Set(changes)).toEqual(new Set(['src/main.ts']));
    // The last content is what it knows: writing it again is no change; a new content is one.
    writeFileSync(path.join(root, 'src/main.ts'), 'export const v = 20;\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await watcher.settled();
    expect(changes.length).toBe(afterBurst);
    writeFileSync(path.join(root, 'src/main.ts'), 'export const v = 21;\n');
    await waitFor(changes, 'src/main.ts', afterBurst + 1);
  });

  it('watches a folder created after the start, and stops reporting a folder deleted', async () => {
    const changes: string[] = [];
    watcher = await ProjectWatcher.start({ root, folders: ['src'], onChange: (file) => changes.push(file) });
    mkdirSync(path.join(root, 'src/webhooks'));
    writeFileSync(path.join(root, 'src/webhooks/a.ts'), 'export {};\n');
    await waitFor(changes, 'src/webhooks/a.ts', 1);
    await saves[2]!.save(path.join(root, 'src/webhooks/a.ts'), 'export const a = 1;\n');
    await waitFor(changes, 'src/webhooks/a.ts', 2);
    await saves[2]!.save(path.join(root, 'src/webhooks/a.ts'), 'export const a = 2;\n');
    await waitFor(changes, 'src/webhooks/a.ts', 3);
    rmSync(path.join(root, 'src/webhooks'), { recursive: true });
    await waitFor(changes, 'src/webhooks/a.ts', 4);
    // Recreated with the same name: watched again.
    mkdirSync(path.join(root, 'src/webhooks'));
    writeFileSync(path.join(root, 'src/webhooks/a.ts'), 'export const a = 3;\n');
    await waitFor(changes, 'src/webhooks/a.ts', 5);
    writeFileSync(path.join(root, 'src/webhooks/a.ts'), 'export const a = 4;\n');
    await waitFor(changes, 'src/webhooks/a.ts', 6);
  });
});
