import { describe, expect, it } from 'vitest';
import { matchLines, mergeLines } from '../../src/scaffold/line-diff.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const labels = { ours: 'ours', theirs: 'kop 0.2.0' };

describe('mergeLines (three-way merge by lines)', () => {
  const cases: { name: string; base: string; ours: string; theirs: string; want: string; conflicts: number }[] = [
    {
      name: 'nothing changed',
      base: lines('a', 'b', 'c'),
      ours: lines('a', 'b', 'c'),
      theirs: lines('a', 'b', 'c'),
      want: lines('a', 'b', 'c'),
      conflicts: 0,
    },
    {
      name: 'clean merge: each side changed other lines',
      base: lines('a', 'b', 'c', 'd', 'e'),
      ours: lines('a', 'B-ours', 'c', 'd', 'e'),
      theirs: lines('a', 'b', 'c', 'D-theirs', 'e'),
      want: lines('a', 'B-ours', 'c', 'D-theirs', 'e'),
      conflicts: 0,
    },
    {
      name: 'both sides made the same change',
      base: lines('a', 'b', 'c'),
      ours: lines('a', 'same', 'c'),
      theirs: lines('a', 'same', 'c'),
      want: lines('a', 'same', 'c'),
      conflicts: 0,
    },
    {
      name: 'conflict: both changed the same line differently',
      base: lines('a', 'b', 'c'),
      ours: lines('a', 'mine', 'c'),
      theirs: lines('a', 'yours', 'c'),
      want: lines('a', '<<<<<<< ours', 'mine', '=======', 'yours', '>>>>>>> kop 0.2.0', 'c'),
      conflicts: 1,
    },
    {
      name: 'conflict keeps the lines both sides share outside the markers',
      base: lines('a', 'b', 'c'),
      ours: lines('a', 'x', 'mine', 'y', 'c'),
      theirs: lines('a', 'x', 'yours', 'y', 'c'),
      want: lines('a', 'x', '<<<<<<< ours', 'mine', '=======', 'yours', '>>>>>>> kop 0.2.0', 'y', 'c'),
      conflicts: 1,
    },
    {
      name: 'additions at the end by theirs only',
      base: lines('a', 'b'),
      ours: lines('A', 'b'),
      theirs: lines('a', 'b', 'new 1', 'new 2'),
      want: lines('A', 'b', 'new 1', 'new 2'),
      conflicts: 0,
    },
    {
      name: 'additions at the end by both sides conflict',
      base: lines('a'),
      ours: lines('a', 'mine'),
      theirs: lines('a', 'theirs'),
      want: lines('a', '<<<<<<< ours', 'mine', '=======', 'theirs', '>>>>>>> kop 0.2.0'),
      conflicts: 1,
    },
    {
      name: 'additions at the start and at the end, one each',
      base: lines('a', 'b'),
      ours: lines('top', 'a', 'b'),
      theirs: lines('a', 'b', 'bottom'),
      want: lines('top', 'a', 'b', 'bottom'),
      conflicts: 0,
    },
    {
      name: 'deletions: theirs removed lines ours kept',
      base: lines('a', 'old 1', 'old 2', 'b', 'c'),
      ours: lines('a', 'old 1', 'old 2', 'b', 'C'),
      theirs: lines('a', 'b', 'c'),
      want: lines('a', 'b', 'C'),
      conflicts: 0,
    },
    {
      name: 'deletions: ours removed a line theirs kept',
      base: lines('a', 'b', 'c', 'd'),
      ours: lines('a', 'b', 'd'),
      theirs: lines('A', 'b', 'c', 'd'),
      want: lines('A', 'b', 'd'),
      conflicts: 0,
    },
    {
      name: 'changes on adjacent lines conflict (no line both kept between them)',
      base: lines('a', 'b', 'c'),
      ours: lines('a', 'B', 'c'),
      theirs: lines('a', 'b', 'x', 'c'),
      want: lines('a', '<<<<<<< ours', 'B', '=======', 'b', 'x', '>>>>>>> kop 0.2.0', 'c'),
      conflicts: 1,
    },
    {
      name: 'deletion against a change conflicts',
      base: lines('a', 'b', 'c'),
      ours: lines('a', 'c'),
      theirs: lines('a', 'B', 'c'),
      want: lines('a', '<<<<<<< ours', '=======', 'B', '>>>>>>> kop 0.2.0', 'c'),
      conflicts: 1,
    },
    {
      name: 'two separate conflicts',
      base: lines('a', 'b', 'c', 'd', 'e'),
      ours: lines('a', 'b1', 'c', 'd1', 'e'),
      theirs: lines('a', 'b2', 'c', 'd2', 'e'),
      want: lines(
        'a',
        '<<<<<<< ours',
        'b1',
        '=======',
        'b2',
        '>>>>>>> kop 0.2.0',
        'c',
        '<<<<<<< ours',
        'd1',
        '=======',
        'd2',
        '>>>>>>> kop 0.2.0',
        'e',
      ),
      conflicts: 2,
    },
    {
      name: 'theirs edits a file ours left alone',
      base: lines('a', 'b'),
      ours: lines('a', 'b'),
      theirs: lines('x', 'a', 'y'),
      want: lines('x', 'a', 'y'),
      conflicts: 0,
    },
    {
      name: 'empty base: both created the same file',
      base: '',
      ours: lines('a', 'b'),
      theirs: lines('a', 'b'),
      want: lines('a', 'b'),
      conflicts: 0,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const merged = mergeLines(c.base, c.ours, c.theirs, labels);
      expect(merged.text).toBe(c.want);
      expect(merged.conflicts).toBe(c.conflicts);
    });
  }

  it('is symmetric up to the sides of the markers', () => {
    const base = lines('a', 'b', 'c', 'd', 'e');
    const ours = lines('a', 'B', 'c', 'd', 'e', 'f');
    const theirs = lines('z', 'a', 'b', 'c', 'D', 'e');
    expect(mergeLines(base, ours, theirs).text).toBe(mergeLines(base, theirs, ours).text);
    expect(mergeLines(base, ours, theirs).text).toBe(lines('z', 'a', 'B', 'c', 'D', 'e', 'f'));
  });
});

describe('matchLines', () => {
  it('matches a longest common subsequence, increasing', () => {
    expect(matchLines(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd', 'y'])).toEqual([0, -1, 2, 3]);
    expect(matchLines(['a', 'b'], [])).toEqual([-1, -1]);
    expect(matchLines(['b', 'a'], ['a', 'b'])).toHaveLength(2);
  });
});
