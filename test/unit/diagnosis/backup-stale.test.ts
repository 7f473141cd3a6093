import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { backupStaleRule } from '../../../src/diagnosis/rules/backup-stale.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import type { BackupsEvidence, Evidence, SnapshotCheck } from '../../../src/probes/evidence.js';
import { clusterEvidence, failed, ok } from '../../support/evidence/evidence.js';

const NOW = Date.parse('2026-11-29T03:00:00Z');
const HOUR = 3600_000;

function snap(
  file: string,
  ageHours: number,
  state: SnapshotCheck['state'],
  extra: Partial<SnapshotCheck> = {},
) {
  return {
    file,
    modifiedAt: NOW - ageHours * HOUR,
    sizeBytes: 4_000_000,
    state,
    revision: state === 'good' ? 40 : null,
    hashOk: state === 'good' ? true : state === 'damaged' ? false : null,
    error:
      state === 'good'
        ? null
        : state === 'damaged'
          ? 'its SHA-256 trailer does not match its bytes'
          : 'not read: it took longer than 10 s',
    ...extra,
  };
}

function withBackups(snapshots: SnapshotCheck[] | undefined, more: Partial<BackupsEvidence> = {}): Evidence {
  const backups: BackupsEvidence = {
    maxAgeHours: 24,
    pattern: '*.db',
    dir: '/b',
    ...(snapshots
      ? { snapshots: ok({ dir: '/b', pattern: '*.db', matched: snapshots.length, snapshots }) }
      : {}),
    ...more,
  };
  return { ...clusterEvidence(), backups };
}

const run = (evidence: Evidence) => backupStaleRule.evaluate(evidence, { now: NOW }).finding;

describe('backup-stale', () => {
  it('a good snapshot within the limit: nothing', () => {
    expect(run(withBackups([snap('a.db', 2, 'good'), snap('b.db', 50, 'damaged')]))).toBeUndefined();
  });

  it('the newest is damaged but a good one is within the limit: info naming both', () => {
    const finding = run(withBackups([snap('new.db', 1, 'damaged'), snap('good.db', 5, 'good')]));
    expect(finding).toMatchObject({ severity: 'info' });
    expect(finding?.summary).toBe(
      'The newest snapshot, new.db (60 min old), is damaged (its SHA-256 trailer does not match its bytes); the newest good one, good.db, is 5.0 h old (limit 24 h)',
    );
  });

  it('the newest good is too old: a warning with how far behind the cluster it is', () => {
    const finding = run(withBackups([snap('old.db', 30, 'good')]));
    expect(finding).toMatchObject({ severity: 'warning', members: [], nodes: [] });
    expect(finding?.summary).toBe('The newest good snapshot, old.db, is 30.0 h old (limit 24 h)');
    // The members' Status says revision 50; the snapshot holds 40.
    expect(finding?.evidence[0]).toBe(
      "old.db: 30.0 h old, 4 MB, revision 40 (10 behind the cluster's 50), SHA-256 ok",
    );
  });

  it('a fresh file not read in time is never called bad: info', () => {
    const finding = run(withBackups([snap('big.db', 1, 'unchecked'), snap('old.db', 30, 'good')]));
    expect(finding?.severity).toBe('info');
    expect(finding?.summary).toMatch(/^The newest snapshot, big\.db \(60 min old\), was not verified/);
  });

  it('no backups in the evidence (not configured, or an offline analysis): not evaluated', () => {
    const result = diagnose(clusterEvidence(), rules, { now: NOW });
    expect(result.trace.find((t) => t.rule === 'backup-stale')).toMatchObject({ skipped: true });
  });

  it('the directory unreadable and no jobs: not evaluated, with the reason', () => {
    const evidence = withBackups(undefined, {
      snapshots: failed('error', 'cluster test: the backup directory /b (backups.dir) does not exist here'),
    });
    const result = diagnose(evidence, rules, { now: NOW, explain: true });
    expect(result.findings.find((f) => f.cause === 'backup-stale')).toBeUndefined();
    expect(result.trace.find((t) => t.rule === 'backup-stale')?.explain[0]).toMatch(
      /not evaluated: no backups evidence arrived \(cluster test: the backup directory \/b/,
    );
  });

  it('jobs only: no backup job at all is a warning', () => {
    const finding = run(
      withBackups(undefined, {
        dir: undefined,
        jobs: ok([]),
      }),
    );
    expect(finding?.summary).toMatch(/^No etcd backup CronJob or Job in Kubernetes/);
  });
});

describe('backup-stale when no member answers', () => {
  it('still judges the backups (they are files, not members); the status stays unknown', () => {
    const down = failed('unreachable', 'etcd is unreachable (Status: connect ECONNREFUSED)');
    const dead = { health: down, status: down, metrics: down, clock: down };
    const evidence: Evidence = {
      ...withBackups([snap('old.db', 30, 'good')]),
      members: clusterEvidence({ 'etcd-1': dead, 'etcd-2': dead, 'etcd-3': dead }).members,
      memberList: down,
    };
    const result = diagnose(evidence, rules, { now: NOW });
    expect(result.status).toBe('unknown');
    expect(result.findings.find((f) => f.cause === 'backup-stale')?.summary).toBe(
      'The newest good snapshot, old.db, is 30.0 h old (limit 24 h)',
    );
  });
});
