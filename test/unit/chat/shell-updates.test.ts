import { describe, expect, it } from '@jest/globals';
import { newPart } from '../../../src/chat/shell/shell-adapter.js';

/** A remediation's steps are printed as they happen; its outcome does not print them again (issue 42). */
describe('an updated message in the shell', () => {
  const progress = [
    '@U0SHELL started Recover from NOSPACE on local',
    '• snapshot of http://127.0.0.1:2379 saved',
    '• compacted to revision 139',
    '• defragmenting etcd-3 (1 of 3)…',
    '• etcd-3: db 17.4 MB → 20.5 KB in 0.0 s',
    '• checking that a write works on etcd-1…',
    '• a write works: put and deleted a key',
  ].join('\n');
  const outcome = [
    '@U0SHELL ran Recover from NOSPACE on local: finished in 1.5 s: writes work again',
    '• snapshot of http://127.0.0.1:2379 saved',
    '• compacted to revision 139',
    '• etcd-3: db 17.4 MB → 20.5 KB in 0.0 s',
    '• a write works: put and deleted a key',
  ].join('\n');

  it('prints the outcome line alone when every step under it was printed already', () => {
    expect(newPart(progress, outcome)).toBe(
      '@U0SHELL ran Recover from NOSPACE on local: finished in 1.5 s: writes work again (its steps are shown above)',
    );
  });

  it('prints a line not shown before under it, and a message never shown whole', () => {
    expect(newPart(progress, `${outcome}\n• member list now: etcd-1 (voter, leader)`)).toBe(
      '@U0SHELL ran Recover from NOSPACE on local: finished in 1.5 s: writes work again (its steps are shown above)\n• member list now: etcd-1 (voter, leader)',
    );
    expect(newPart(undefined, outcome)).toBe(outcome);
    expect(newPart('one line', outcome)).toBe(outcome);
    // A message whose lines are new is printed whole.
    expect(newPart(progress, 'ran it: failed\n• something else\n• and more')).toBe(
      'ran it: failed\n• something else\n• and more',
    );
  });
});
