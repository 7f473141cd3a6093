import { describe, expect, it } from '@jest/globals';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';
import { writeLoadStarted } from '../../support/lab/write-load.js';
import { knownBugsOf, patchToReach } from '../../../src/etcd/known-bugs.js';
import { renderText } from '../../../src/report/render-text.js';
import { createMemberClients } from '../../../src/clients/etcd-clients.js';
import { memberStatus } from '../../../src/clients/etcd-status.js';
import { grpcDeadline } from '../../../src/clients/grpc-deadline.js';
import { createHttpGet } from '../../../src/clients/http.js';
import { readHttpHealth } from '../../../src/probes/http-health.js';
import { aboutTheCluster, faultsNow } from '../../support/evidence/findings.js';

describe('a healthy 3-member cluster', () => {
  const t = useLabDoctor();

  it('health: every member reachable, one leader, no findings', async () => {
    const report = await t.doctor.run('lab', 'health');
    expect(report.status).toBe('healthy');
    expect(aboutTheCluster(report.findings)).toEqual([]);
    expect(report.members.map((m) => m.name).sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(report.members.every((m) => m.reachable && m.tookMs !== null && m.dbSizeBytes !== null)).toBe(
      true,
    );
    expect(report.members.filter((m) => m.isLeader)).toHaveLength(1);
    expect(report.members.map((m) => m.endpoint).sort()).toEqual([...t.lab.endpoints].sort());
    expect(report.probes.every((p) => p.ok)).toBe(true);
  });

  it("Status read with etcd 3.6's shape reads the lab's 3.4/3.5 members as etcd3 does, with no downgrade", async () => {
    for (const endpoint of t.lab.endpoints) {
      const clients = createMemberClients(endpoint, undefined);
      try {
        const ours = await memberStatus(clients.admin, grpcDeadline(5000));
        const theirs = await clients.admin.maintenance.status(grpcDeadline(5000));
        // The raft index and the revision may move between the two calls; everything else may not.
        const stable = (s: object) => {
          const { raftIndex, raftAppliedIndex, header, ...rest } = s as Record<string, unknown>;
          const { revision, ...h } = header as Record<string, unknown>;
          return { ...rest, header: h };
        };
        expect(stable(ours)).toEqual(stable(theirs));
        expect(ours).not.toHaveProperty('downgradeInfo');
        expect(ours).not.toHaveProperty('storageVersion');
      } finally {
        clients.kv.close();
        clients.admin.close();
      }
    }
    const report = await t.doctor.run('lab', 'health');
    expect(report.findings.map((f) => f.cause)).not.toContain('downgrade-in-progress');
    expect(report.members.every((m) => m.downgrade === undefined && /^3\.[45]\./.test(m.version ?? ''))).toBe(
      true,
    );
  });

  it('etcd HTTP health: /readyz and /livez where the release serves them (3.5.30), else /health after a 404 (3.4.23)', async () => {
    const http = createHttpGet(undefined);
    const report = await t.doctor.run('lab', 'health');
    try {
      for (const endpoint of t.lab.endpoints) {
        const version = report.members.find((m) => m.endpoint === endpoint)?.version ?? '';
        const h = await readHttpHealth(http.get, endpoint, AbortSignal.timeout(5000));
        if (servesReadyz(version)) {
          // The real answer has the shape recorded from v3.6.0 (test/fixtures/etcd-source/v3.6.0-readyz-livez.json).
          expect(h.path).toBe('/readyz');
          expect(h.ok).toBe(true);
          expect(h.checks.map((c) => c.name).sort()).toEqual([
            'data_corruption',
            'non_learner',
            'serializable_read',
          ]);
          expect(h.live).toEqual({ ok: true, checks: [{ name: 'serializable_read', ok: true }] });
        } else expect(h).toEqual({ path: '/health', ok: true, checks: [{ name: 'health', ok: true }] });
      }
    } finally {
      await http.close();
    }
  });

  it("health: the lab's etcd release is named with its known bugs, the patch to reach and the links", async () => {
    const report = await t.doctor.run('lab', 'health');
    const version = report.members[0]?.version ?? '';
    const hits = knownBugsOf(version, { memberCount: 3 });
    // Debian's 3.4.23 and 3.5.30 both have fixes since (src/etcd/known-bugs.ts).
    expect(hits.length).toBeGreaterThan(0);
    const finding = report.findings.find((f) => f.cause === 'known-bug');
    expect(finding?.members.sort()).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(finding?.severity).toBe(hits.some((h) => h.bug.kind !== 'security') ? 'warning' : 'info');
    expect(report.status).toBe('healthy');
    const text = renderText(report);
    expect(text).toContain(`Known bug: known-bug [${finding?.severity}] on etcd-`);
    expect(text).toContain(`run etcd ${version}, missing `);
    expect(text).toContain(`upgrade to ${patchToReach(hits)} or later`);
    for (const h of hits) expect(text).toContain(h.bug.link);
  });

  it('diagnose when idle: healthy, no warning, fsync figures and clocks present', async () => {
    const report = await t.doctor.run('lab', 'diagnose', { explain: true });
    expect(report.status).toBe('healthy');
    expect(faultsNow(report.findings)).toEqual([]);
    expect(report.members.every((m) => m.clockOffsetMs !== null && Math.abs(m.clockOffsetMs) < 1000)).toBe(
      true,
    );
    expect(report.explain?.find((t) => t.rule === 'slow-disk')).toMatchObject({
      fired: false,
      skipped: false,
    });
  });

  it('diagnose under a moderate write load (200 puts/s for the window): still healthy', async () => {
    const load = await writeLoadStarted(t.lab, { ratePerSecond: 200, durationMs: 4500, valueBytes: 512 });
    const report = await t.doctor.run('lab', 'diagnose');
    const written = await load.done;
    expect(written.errors).toBe(0);
    expect(written.puts).toBeGreaterThan(500);
    expect(faultsNow(report.findings)).toEqual([]);
    expect(report.status).toBe('healthy');
    // The window saw the writes, so fsync p99 is a windowed figure on every member.
    expect(report.members.every((m) => m.walFsyncP99Ms !== null)).toBe(true);
  });
});

/** /readyz came with 3.6 and was backported to 3.5.11 and 3.4.29 (health.go installReadyzEndpoints at those tags). */
function servesReadyz(version: string): boolean {
  const [major, minor, patch] = version.split('.').map(Number);
  if (major !== 3 || minor === undefined || patch === undefined) return false;
  return minor >= 6 || (minor === 5 && patch >= 11) || (minor === 4 && patch >= 29);
}
