import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliInProcess } from '../../support/process/cli-in-process.js';

/**
 * A member slow on small requests (slow-disk-logs) and authentication beside late heartbeats
 * (cpu-starvation-logs), through `etcd-doctor analyze --json`, on lines of the shape etcd writes:
 * etcdserver/util.go warnOfExpensive*Request (v3.3.0, v3.4.0 capnslog; v3.4.0–v3.6.0 zap `apply
 * request took too long`), etcdserver/raft.go (v3.3.0 `failed to send out heartbeat on time`).
 */
interface Finding {
  cause: string;
  severity: string;
  members: string[];
  summary: string;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'etcd-doctor-slow-requests-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function analyze(name: string, lines: string[]): Promise<Finding[]> {
  const log = join(tmp, name);
  await writeFile(log, `${lines.join('\n')}\n`);
  const r = await cliInProcess(['analyze', log, '--json']);
  if (r.stderr) throw new Error(r.stderr);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
}

const alarms = (findings: Finding[]) => findings.filter((f) => f.severity !== 'info').map((f) => f.cause);

const capnsRead = (at: string, key: string, result: string, took: string) =>
  `2022-03-15 ${at} W | etcdserver: read-only range request "key:\\"${key}\\" " with result "${result}" took too long (${took}) to execute`;
const zapRead = (at: string, key: string, response: string, took: string) =>
  `{"level":"warn","ts":"2023-06-01T${at}Z","caller":"etcdserver/util.go:166","msg":"apply request took too long","took":"${took}","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"${key}\\" ","response":"${response}"}`;

describe('slow-disk from small requests over 100 ms', () => {
  it('capnslog 3.4: small reads and a write, repeated, are a slow-disk warning on the member', async () => {
    const findings = await analyze('etcd-a.log', [
      capnsRead('09:04:44.521958', '/registry/health', 'range_response_count:0 size:7', '146.553126ms'),
      capnsRead(
        '09:04:44.555798',
        '/registry/leases/kube-system/kube-scheduler',
        'range_response_count:1 size:529',
        '135.106455ms',
      ),
      '2022-03-15 09:04:45.000001 W | etcdserver: request "header:<ID:8912191783742552676 > txn:<compare:<target:MOD key:\\"/registry/x\\" mod_revision:9 > success:<request_put:<key:\\"/registry/x\\" value_size:726 >> failure:<>>" with result "size:18" took too long (150ms) to execute',
    ]);
    expect(findings[0]).toMatchObject({ cause: 'slow-disk', severity: 'warning', members: ['etcd-a'] });
    expect(findings[0]?.summary).toMatch(/small requests .* slower than etcd's 100 ms \(3 of 3 ×/);
  });

  it('zap 3.5: the same from `apply request took too long` with its response', async () => {
    const findings = await analyze('etcd-b.log', [
      zapRead('10:00:00.000', '/registry/health', 'range_response_count:0 size:7', '120ms'),
      zapRead('10:00:01.000', '/registry/health', 'range_response_count:0 size:7', '180ms'),
      zapRead(
        '10:00:02.000',
        '/registry/configmaps/kube-system/a',
        'range_response_count:1 size:900',
        '240ms',
      ),
    ]);
    expect(findings[0]).toMatchObject({ cause: 'slow-disk', severity: 'warning', members: ['etcd-b'] });
  });

  it('two small requests, or lists, or requests that failed in an election, are no warning', async () => {
    expect(
      alarms(
        await analyze('etcd-c.log', [
          capnsRead('09:04:44.521958', '/registry/health', 'range_response_count:0 size:7', '146ms'),
          capnsRead('09:04:45.521958', '/registry/health', 'range_response_count:0 size:7', '126ms'),
        ]),
      ),
    ).toEqual([]);
    expect(
      alarms(
        await analyze('etcd-d.log', [
          capnsRead('09:04:44.000001', '/registry/pods/', 'range_response_count:5000 size:9000000', '900ms'),
          capnsRead('09:04:45.000001', '/registry/pods/', 'range_response_count:5000 size:9000000', '950ms'),
          capnsRead(
            '09:04:46.000001',
            '/registry/events/',
            'range_response_count:12000 size:19000000',
            '1.2s',
          ),
          capnsRead('09:04:47.000001', '/registry/health', 'error:etcdserver: leader changed', '1.03s'),
          capnsRead('09:04:47.000002', '/registry/health', 'error:etcdserver: leader changed', '1.03s'),
        ]),
      ),
    ).not.toContain('slow-disk');
  });
});

describe('small requests slow beside a member with proof', () => {
  it("another member's slow fdatasync explains them: only that member is named", async () => {
    const a = join(tmp, 'etcd-g.log');
    const b = join(tmp, 'etcd-h.log');
    await writeFile(
      a,
      `${[0, 1, 2].map((i) => zapRead(`10:00:0${i}.000`, '/registry/health', 'range_response_count:0 size:7', '900ms')).join('\n')}\n`,
    );
    await writeFile(
      b,
      '{"level":"warn","ts":"2023-06-01T10:00:00.000Z","caller":"wal/wal.go:805","msg":"slow fdatasync","took":"1.328471093s","expected-duration":"1s"}\n',
    );
    const r = await cliInProcess(['analyze', a, b, '--json']);
    const findings = (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
    expect(findings[0]).toMatchObject({ cause: 'slow-disk', members: ['etcd-h'] });
  });
});

describe('cpu-starvation from authentication beside late heartbeats', () => {
  const auth = (at: string, took: string) =>
    `2019-08-09 ${at} W | etcdserver: request "header:<ID:17006274213493527777 > authenticate:<name:root simple_token:>" with result "size:796" took too long (${took}) to execute`;
  const late = (at: string, by: string) =>
    `2019-08-09 ${at} W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for ${by})`;

  it('one authenticate over 300 ms beside two late heartbeats: three stalls, a warning naming the user', async () => {
    const findings = await analyze('etcd-e.log', [
      auth('10:57:50.500232', '331.139139ms'),
      late('10:57:51.131115', '71.742296ms'),
      '2019-08-09 10:57:51.131153 W | etcdserver: server is likely overloaded',
      late('10:57:51.644504', '123.516079ms'),
      '2019-08-09 10:57:51.644542 W | etcdserver: server is likely overloaded',
    ]);
    expect(findings[0]).toMatchObject({ cause: 'cpu-starvation', severity: 'warning', members: ['etcd-e'] });
    expect(findings[0]?.summary).toMatch(/user root/);
  });

  it('one of each (a GC pause makes that) is no warning', async () => {
    const findings = await analyze('etcd-f.log', [
      auth('10:57:50.500232', '331.139139ms'),
      late('10:57:51.131115', '71.742296ms'),
    ]);
    expect(alarms(findings)).toEqual([]);
  });
});
