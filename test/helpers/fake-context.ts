import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Context, Exec, Output, PromptQuestion } from '../../src/base/context.js';
import { UsageError } from '../../src/base/errors.js';
import { createStyles } from '../../src/cli/output.js';

/** An Output that records lines, so tests can assert on what the user would see. */
export interface RecordingOutput extends Output {
  lines: string[];
  warnings: string[];
}

export function recordingOutput(): RecordingOutput {
  const lines: string[] = [];
  const warnings: string[] = [];
  return {
    lines,
    warnings,
    styles: createStyles(false),
    info: (message) => void lines.push(message),
    warn: (message) => void warnings.push(message),
    debug: () => {},
  };
}

export interface TestContextOptions {
  cwd: string;
  dryRun?: boolean;
  /** Answers by flag for an interactive prompter; without them the prompter is non-interactive. */
  answers?: Record<string, string | boolean>;
  exec?: Exec;
  now?: Date;
}

/** A context over a real directory with a fixed clock, recorded output and scripted answers. */
export function testContext(options: TestContextOptions): Context & { out: RecordingOutput; asked: PromptQuestion[] } {
  const asked: PromptQuestion[] = [];
  const now = options.now ?? new Date('2026-01-02T03:04:05Z');
  const answers = options.answers;
  return {
    cwd: options.cwd,
    dryRun: options.dryRun ?? false,
    verbose: false,
    out: recordingOutput(),
    asked,
    prompter: {
      interactive: answers !== undefined,
      async ask(question) {
        asked.push(question);
        if (answers && question.flag in answers) return answers[question.flag]!;
        if (question.initial !== undefined) return question.initial;
        throw new UsageError(`missing ${question.flag}`);
      },
    },
    exec:
      options.exec ??
      (async (file) => {
        throw new Error(`unexpected exec of ${file} in a unit test`);
      }),
    now: () => new Date(now),
    env: {},
  };
}

/** A fresh temp directory named `name` (the folder name matters to `kop init`), removed by the returned cleanup. */
export async function tempDir(name = 'work'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const parent = mkdtempSync(path.join(tmpdir(), 'kop-test-'));
  const dir = path.join(parent, name);
  mkdirSync(dir);
  // Synchronous, like the copy in prepared-project.ts: an async recursive rm costs a thread pool round
  // trip per file and folder, more than the removing.
  return { dir, cleanup: async () => rmSync(parent, { recursive: true, force: true }) };
}
