import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { REPEAT_SIGNAL_WINDOW_MS, stopOnSignals } from '../../src/dev/stop-on-signals.js';

describe('kop dev: stopping on signals', () => {
  /** A session's signal handling with signals, a clock and an exit of the test's own. */
  function session() {
    const signals = new EventEmitter();
    const lines: string[] = [];
    const exits: number[] = [];
    let clock = 1_000;
    const stop = stopOnSignals((line) => lines.push(line), {
      signals,
      exit: (code) => exits.push(code),
      now: () => clock,
    });
    return { stop, signals, lines, exits, advance: (ms: number) => (clock += ms) };
  }

  it('stops on the first signal, and takes the same Ctrl-C forwarded by a wrapper as one', () => {
    const { stop, signals, lines, exits, advance } = session();
    signals.emit('SIGINT', 'SIGINT');
    expect(stop.signal.aborted).toBe(true);
    advance(5);
    signals.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([]);
    expect(lines).toEqual(['kop dev: SIGINT, stopping (again to force)']);
  });

  it('exits at once on a second signal after the first', () => {
    const { signals, lines, exits, advance } = session();
    signals.emit('SIGTERM', 'SIGTERM');
    advance(REPEAT_SIGNAL_WINDOW_MS);
    signals.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    expect(lines).toEqual(['kop dev: SIGTERM, stopping (again to force)', 'kop dev: SIGINT again, exiting now']);
  });

  it('stops listening once disposed', () => {
    const { stop, signals } = session();
    expect(signals.listenerCount('SIGHUP')).toBe(1);
    stop.dispose();
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((signal) => signals.listenerCount(signal))).toEqual([0, 0, 0]);
    signals.emit('SIGHUP', 'SIGHUP');
    expect(stop.signal.aborted).toBe(false);
  });
});
