import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { cliInProcess } from '../../support/process/cli-in-process.js';

const LOGS = join(import.meta.dirname, '../../fixtures/offline/logs');
const LAB = join(import.meta.dirname, '../../fixtures/offline/lab');

describe('etcd-doctor analyze', () => {
  it('text: the root cause, the timeline, and the rules not evaluated offline; exit 1', async () => {
    const r = await cliInProcess(['analyze', join(LOGS, 'journald-master-2.log')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^Analysis of journald-master-2\.log: CRITICAL/);
    expect(r.stdout).toContain('Root cause: slow-disk [critical] on journald-master-2');
    expect(r.stdout).toContain('14 × slow fdatasync, up to 4.0 s, 12:26:12–12:26:27');
    expect(r.stdout).toMatch(/Timeline \(UTC\):\n {2}12:26:10 {2}journald-master-2: 1 × starting member/);
    // slow-disk was evaluated from the logs and fired: it is not listed as not evaluated.
    const notEvaluated = /Not evaluated offline \(they need live readings\): (.*)/.exec(r.stdout)?.[1];
    expect(notEvaluated).toMatch(/clock-skew/);
    expect(notEvaluated).not.toMatch(/slow-disk/);
  });

  it('--json: the diagnose contract plus source and timeline', async () => {
    const files = ['etcd-1.log', 'etcd-2.log', 'etcd-3.log'].map((f) => join(LAB, 'member-down', f));
    const r = await cliInProcess(['analyze', ...files, '--json']);
    const report = JSON.parse(r.stdout) as Record<string, unknown> & {
      findings: Array<{ cause: string; members: string[] }>;
      source: Array<{ kind: string; path: string }>;
      timeline: Array<{ signal: string; member: string; firstSeenAt: string }>;
    };
    expect(r.code).toBe(1);
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining([
        'cluster',
        'status',
        'durationMs',
        'members',
        'findings',
        'probes',
        'source',
        'timeline',
      ]),
    );
    expect(report.findings[0]).toMatchObject({ cause: 'member-down', members: ['etcd-2'] });
    expect(report.source.map((s) => s.path)).toEqual(files);
    expect(report.timeline.some((t) => t.signal === 'peerUnreachable' && t.member === 'etcd-1')).toBe(true);
  });

  it('bad input: one line on stderr saying what to do, exit 2', async () => {
    const r = await cliInProcess(['analyze', join(LOGS, 'missing.log')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`etcd-doctor: ${join(LOGS, 'missing.log')}: no such file or directory`);
    const none = await cliInProcess(['analyze']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/missing required argument 'path'/);
  });

  it('reads stdin for - (the real binary, a pipe)', () => {
    const bin = join(import.meta.dirname, '../../../bin/etcd-doctor.js');
    const input = spawnSync('cat', [join(LOGS, 'capnslog-etcd-2.log')]).stdout;
    const r = spawnSync(process.execPath, [bin, 'analyze', '-'], {
      input,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('Root cause: slow-disk [critical] on stdin');
  });
});
