/** The signals that end a `kop dev` session: Ctrl-C, a kill, the terminal closing. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A repeat within this time is the same stop request, not a second one: one Ctrl-C reaches
 * `kop dev` twice, a few milliseconds apart, when a wrapper (a script that runs it) forwards
 * the terminal's signal to it as well.
 */
export const REPEAT_SIGNAL_WINDOW_MS = 500;

/** What stopOnSignals needs from the process; tests give their own. */
export interface StopOnSignalsOptions {
  /** Where the signals arrive (default: process). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  exit?: (code: number) => void;
  now?: () => number;
}

/**
 * An AbortSignal that aborts on the first SIGINT, SIGTERM or SIGHUP, so the session stops the
 * manager, the control plane and the watchers in order. A second signal while that runs (later
 * than {@link REPEAT_SIGNAL_WINDOW_MS}) exits at once: the exit handlers of kop/testing's cleanup
 * still SIGKILL every process the session tracks (the control plane's and the manager), so
 * nothing is left behind.
 */
export function stopOnSignals(
  write: (line: string) => void,
  { signals = process, exit = (code) => process.exit(code), now = Date.now }: StopOnSignalsOptions = {},
): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let firstAt = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      write(`kop dev: ${signal}, stopping (again to force)`);
      firstAt = now();
      controller.abort();
      return;
    }
    if (now() - firstAt < REPEAT_SIGNAL_WINDOW_MS) return;
    write(`kop dev: ${signal} again, exiting now`);
    exit(130);
  };
  for (const signal of STOP_SIGNALS) signals.on(signal, onSignal);
  return {
    signal: controller.signal,
    dispose() {
      for (const signal of STOP_SIGNALS) signals.off(signal, onSignal);
    },
  };
}
