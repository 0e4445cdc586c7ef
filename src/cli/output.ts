import type { Output, Styles } from '../base/index.js';

/** Where output goes; process.stdout/stderr in the CLI, string sinks in tests. */
export interface OutputStreams {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/**
 * Colour only when the stream is a terminal, `--no-color` was not given and NO_COLOR
 * is unset or empty (https://no-color.org); FORCE_COLOR=1 turns it on for CI logs.
 */
export function shouldUseColor(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined>,
  colorFlag = true,
): boolean {
  if (!colorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

const ESC = '\u001b[';
const wrap = (open: number, close: number) => (text: string) => `${ESC}${open}m${text}${ESC}${close}m`;
const identity = (text: string) => text;

/** ANSI styles when `enabled`, identity functions otherwise. */
export function createStyles(enabled: boolean): Styles {
  if (!enabled)
    return { bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity };
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** The CLI's Output: info to stdout, warnings and debug detail to stderr. */
export function createOutput(streams: OutputStreams, options: { verbose: boolean; color: boolean }): Output {
  const styles = createStyles(options.color);
  return {
    styles,
    info: (message) => void streams.stdout.write(message + '\n'),
    warn: (message) => void streams.stderr.write(`${styles.yellow('warning:')} ${message}\n`),
    debug: (message) => {
      if (options.verbose) streams.stderr.write(styles.dim(message) + '\n');
    },
  };
}
