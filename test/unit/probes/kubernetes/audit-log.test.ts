import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AUDIT_RECENT_MS, auditListers, readTail } from '../../../../src/probes/kubernetes/audit-log.js';

/*
 * Who lists, from an API server audit log (issue 39): test/fixtures/kube/list-storm/audit.log holds
 * audit.k8s.io/v1 Events of the log backend's shape (one JSON object a line, a RequestReceived and a
 * ResponseComplete line per request) for the 75 s before the fixture's recording time: a CI runner's
 * kubectl listing every pod 3 times a second, Prometheus listing pods every 10 s, the controller
 * manager's configmaps in kube-system, and the lease updates and node status patches that are no LIST.
 */
const AUDIT = fileURLToPath(new URL('../../../fixtures/kube/list-storm/audit.log', import.meta.url));
const RECORDED = Date.parse('2024-05-14T09:30:00Z');
const all = { path: AUDIT, maxBytes: 64 * 1024 * 1024, maxLines: 100_000 };

describe('the audit log: who lists', () => {
  it('counts each LIST once in the last minute, by resource, scope, user and client', async () => {
    // The runner's LISTs from 09:28:59.999985 (received a few µs before the minute) to 09:29:59.666;
    // Prometheus's at 09:29:00 (on the minute's edge, counted) to 09:29:50.
    const a = auditListers(await readTail(all), RECORDED, AUDIT_RECENT_MS);
    expect(a.eventsRead).toBe(643);
    expect(a.newestAtMs).toBeLessThanOrEqual(RECORDED);
    expect(a.listers).toEqual([
      {
        resource: 'pods',
        scope: 'cluster',
        username: 'system:serviceaccount:ci:runner',
        client: 'kubectl/v1.30.2',
        lists: 179,
      },
      {
        resource: 'configmaps',
        scope: 'namespace',
        username: 'system:kube-controller-manager',
        client: 'kube-controller-manager/v1.29.4',
        lists: 36,
      },
      {
        resource: 'pods',
        scope: 'cluster',
        username: 'system:serviceaccount:monitoring:prometheus',
        client: 'Prometheus/2.51.0',
        lists: 7,
      },
    ]);
  });

  it('nothing recent: a log whose events are all older than the minute', async () => {
    const a = auditListers(await readTail(all), RECORDED + 3_600_000, AUDIT_RECENT_MS);
    expect(a.listers).toEqual([]);
    expect(a.eventsRead).toBe(643);
  });

  describe('bounded', () => {
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'audit-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('reads only the last bytes and lines, without the cut first line or a half-written last one', async () => {
      const line = (i: number) =>
        JSON.stringify({
          kind: 'Event',
          apiVersion: 'audit.k8s.io/v1',
          auditID: `id-${i}`,
          stage: 'ResponseComplete',
          verb: 'list',
          user: { username: `u${i}` },
          objectRef: { resource: 'pods', apiVersion: 'v1' },
          requestReceivedTimestamp: '2024-05-14T09:29:59.000000Z',
        });
      const whole = Array.from({ length: 100 }, (_, i) => line(i)).join('\n');
      const path = join(dir, 'audit.log');
      await writeFile(path, `${whole}\n{"kind":"Event","apiVer`);
      const lines = await readTail({ path, maxBytes: 10 * line(99).length, maxLines: 5 });
      expect(lines).toHaveLength(5);
      expect(lines.at(-1)).toBe(line(99));
      expect(lines[0]).toBe(line(95));
      const tenth = await readTail({ path, maxBytes: 10 * (line(99).length + 1) + 23 + 5, maxLines: 1000 });
      // The 23 bytes being written, 10 whole lines with their newlines, and 5 bytes of a cut one, dropped.
      expect(tenth.every((l) => l.startsWith('{"kind":"Event"'))).toBe(true);
      expect(tenth).toHaveLength(10);
    });

    it('a file that cannot be read says so', async () => {
      await expect(readTail({ ...all, path: join(dir, 'missing.log') })).rejects.toThrow(
        /cannot read the audit log .*missing\.log: ENOENT/,
      );
    });
  });
});
