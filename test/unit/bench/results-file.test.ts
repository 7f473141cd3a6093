import { describe, expect, it } from '@jest/globals';
import { nextResultsFile, sectionKey } from '../../../bench/results-file.js';

const goals = (rows: string[]) =>
  [
    '## Goals of the performance issue, judged from this run',
    '',
    '| figure | this run | goal | verdict | beside it in the same run |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');

const run1 = [
  '# Benchmarks',
  '',
  '- Date: one',
  '',
  '## CLI as a whole process (3 members)',
  '',
  'cli 200 ms',
  '',
  '## CPU of one watch check (20 clusters)',
  '',
  'check 22 ms',
  '',
  goals(['| cli | 200 ms | <= 150 ms | not met |  |', '| check | 22 ms | <= 10 ms | not met |  |']),
  '## Shortfalls against the goals, and their causes',
  '',
  '- some',
  '',
].join('\n');

describe('docs/BENCHMARKS.md across runs', () => {
  it('matches sections by their heading before the figures', () => {
    expect(sectionKey('## CPU of one watch check (3 local members, 20 clusters)')).toBe(
      'cpu of one watch check',
    );
    expect(sectionKey('### Digest over 1000 clusters, watched (a day)')).toBe(
      'digest over 1000 clusters, watched',
    );
    expect(sectionKey('## Digest over 1000 clusters')).toBe('digest over 1000 clusters');
  });

  it('moves a full run to Previous run instead of overwriting it', () => {
    const second = nextResultsFile(
      nextResultsFile('', run1, false),
      run1.replace('cli 200', 'cli 120'),
      false,
    );
    const [current, previous] = second.split('\n# Previous run');
    expect(current).toContain('cli 120 ms');
    expect(previous).toContain('### CLI as a whole process');
    expect(previous).toContain('cli 200 ms');
    expect(second.match(/# Previous run/g)).toHaveLength(1);
  });

  it('replaces only the sections a partial run ran, and keeps their old versions beside', () => {
    const full = nextResultsFile('', run1, false);
    const partial = [
      '# Benchmarks',
      '',
      '## Digest over 9 clusters',
      '',
      'new section',
      '',
      '## CPU of one watch check (40 clusters)',
      '',
      'check 9 ms',
      '',
      goals(['| check | 9 ms | <= 10 ms | met |  |']),
      '## Shortfalls against the goals, and their causes',
      '',
      '- what the code knows now',
      '',
    ].join('\n');
    const next = nextResultsFile(full, partial, true, '- re-ran watch-check');
    const [current = '', previous = ''] = next.split('\n# Previous run');
    expect(current).toContain('cli 200 ms');
    expect(current).toContain('check 9 ms');
    expect(current).not.toContain('check 22 ms');
    expect(current).toContain('- re-ran watch-check');
    expect(current).toContain('| check | 9 ms | <= 10 ms | met |');
    expect(current).toContain('| cli | 200 ms | <= 150 ms | not met (earlier run) |');
    // The causes are the newest text, once: they are not figures of one run.
    expect(current).toContain('- what the code knows now');
    expect(current).not.toContain('- some');
    expect(current.match(/## Shortfalls/g)).toHaveLength(1);
    // A section the file did not have goes before the goals table and the shortfalls.
    expect(current.indexOf('new section')).toBeLessThan(current.indexOf('## Goals'));
    expect(previous).toContain('check 22 ms');
    expect(previous).toContain('(From the run of one.)');
    expect(previous).not.toContain('cli 200 ms');
    // A second partial run replaces the previous copy of the same section.
    const again = nextResultsFile(next, partial.replace('check 9', 'check 8'), true);
    const [, previous2 = ''] = again.split('\n# Previous run');
    expect(previous2).toContain('check 9 ms');
    expect(previous2).not.toContain('check 22 ms');
  });
});
