import { describe, expect, it } from 'vitest';
import { deferredModule, loadCommander } from '../../src/cli/load-commander.js';

describe('loadCommander', () => {
  it('returns a working commander', () => {
    const { Command, CommanderError } = loadCommander();
    const program = new Command('x').option('--name <name>').exitOverride();
    program.parse(['--name', 'kop'], { from: 'user' });
    expect(program.opts()).toEqual({ name: 'kop' });
    expect(() => program.parse(['--nope'], { from: 'user' })).toThrow(CommanderError);
  });
});

describe('deferredModule', () => {
  it('loads the module on first use only, then behaves as it', () => {
    let loads = 0;
    const real = { spawn: () => 'spawned', version: 3 };
    const stand = deferredModule(() => {
      loads += 1;
      return real;
    });
    expect(loads).toBe(0);
    expect(stand.spawn()).toBe('spawned');
    expect(stand.version).toBe(3);
    expect('spawn' in stand).toBe(true);
    expect(Object.keys(stand)).toEqual(['spawn', 'version']);
    expect(loads).toBe(1);
  });
});
