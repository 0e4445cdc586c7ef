/**
 * The built CLI on a real pseudo-terminal, as a user at a terminal runs it: util-linux's
 * `script` gives the child a pty of 100x40 (stdin and stdout are TTYs, so kop asks its
 * questions), the test reads what the terminal shows and types keys.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { KOP_BIN } from './cli-project.js';

/** Keys as a terminal sends them. */
export const KEY = {
  enter: '\r',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  backspace: '\x7f',
  ctrlC: '\x03',
} as const;

/** What a terminal shows, without colours and cursor movements. */
function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\r/g, '');
}

export class TerminalSession {
  private readonly child: ChildProcess;
  private output = '';
  /** Where the next `expect` starts reading: what was seen before is not seen again. */
  private seen = 0;
  readonly exited: Promise<number>;

  /** Runs `kop <kopArgs>` in `cwd`. The arguments are fixed words of the test, passed to `script` as one command. */
  constructor(kopArgs: readonly string[], cwd: string) {
    if (kopArgs.some((arg) => !/^[\w.=-]+$/.test(arg)))
      throw new Error(`TerminalSession takes plain words only: ${kopArgs.join(' ')}`);
    // `script -c` takes one command line; node and kop come in through the environment, so the
    // line holds only the test's own words. The pty gets a size, or prompts wrap every character.
    const command = `stty cols 100 rows 40; exec "$KOP_NODE" "$KOP_BIN" ${kopArgs.join(' ')}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TERM: 'xterm-256color',
      NO_COLOR: undefined,
      KOP_NODE: process.execPath,
      KOP_BIN,
    };
    // CI=true makes kop take every default without asking, as on a CI runner.
    delete env.CI;
    this.child = spawn('script', ['-qefc', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', (error) =>
        reject(new Error(`cannot run util-linux's script (${error.message}); install it (Debian: bsdutils)`)),
      );
      this.child.on('exit', (code) => resolve(code ?? 1));
    });
  }

  /** Everything the terminal showed so far. */
  get screen(): string {
    return visible(this.output);
  }

  /** Waits until the terminal shows `text` after what earlier calls saw; fails naming what it shows. */
  async expect(text: string | RegExp, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rest = this.screen.slice(this.seen);
      const match =
        typeof text === 'string'
          ? { index: rest.indexOf(text), length: text.length }
          : (() => {
              const found = text.exec(rest);
              return { index: found?.index ?? -1, length: found?.[0].length ?? 0 };
            })();
      if (match.index >= 0) {
        this.seen += match.index + match.length;
        return;
      }
      if (Date.now() > deadline)
        throw new Error(`the terminal never showed ${String(text)}; it shows:\n${rest.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Types keys, as a user does. */
  type(keys: string): void {
    this.child.stdin!.write(keys);
  }

  /** Stops the session (and kop under it) if it still runs. */
  close(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
