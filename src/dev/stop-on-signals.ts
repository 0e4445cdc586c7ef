/** The signals that end a `kop dev` session: Ctrl-C, a kill, the terminal closing. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * An AbortSignal that aborts on the first SIGINT, SIGTERM or SIGHUP, so the session stops the
 * manager, the control plane and the watchers in order. A second signal while that runs
 * exits at once: the exit handlers of kop/testing's cleanup still SIGKILL every process the
 * session tracks (the control plane's and the manager), so nothing is left behind.
 */
export function stopOnSignals(write: (line: string) => void): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      write(`kop dev: ${signal}, stopping (again to force)`);
      controller.abort();
      return;
    }
    write(`kop dev: ${signal} again, exiting now`);
    process.exit(130);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    signal: controller.signal,
    dispose() {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    },
  };
}
