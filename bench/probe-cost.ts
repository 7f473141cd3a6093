import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import { createDoctor } from '../src/doctor.js';
import { startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { DIAGNOSIS_PROBES, labConfig } from '../test/support/lab/lab-config.js';
import { row } from './stats.js';

/**
 * What one diagnosis costs each member, measured by etcd itself: the gRPC calls it handled
 * (`grpc_server_handled_total` by method) and the client bytes it sent and received, read from
 * its /metrics before and after one `diagnose`. HTTP GETs (/metrics, /version) are counted from
 * the report's own probe records. Goal: no range over the keyspace, a handful of small RPCs.
 */
async function scrape(url: string): Promise<string> {
  const res = await request(url);
  return res.body.text();
}

function grpcCalls(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^grpc_server_handled_total\{([^}]*)\} (\d+)/gm)) {
    const method = /grpc_method="([^"]+)"/.exec(m[1] ?? '')?.[1] ?? '?';
    calls.set(method, (calls.get(method) ?? 0) + Number(m[2]));
  }
  return calls;
}

function counter(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export async function benchProbeCost(): Promise<string> {
  const lab = await startEtcdLab();
  const doctor = createDoctor({
    config: labConfig(lab, { name: 'lab', probes: DIAGNOSIS_PROBES }),
    readFileBuffer: (p) => readFile(p),
  });
  try {
    await doctor.run('lab', 'health'); // open the channels first, as a warm bot would
    const before = await Promise.all(lab.metricsUrls.map((u) => scrape(`${u}/metrics`)));
    const report = await doctor.run('lab', 'diagnose');
    const after = await Promise.all(lab.metricsUrls.map((u) => scrape(`${u}/metrics`)));
    const metricsBytes = after.map((t) => Buffer.byteLength(t));
    const rows = lab.members.map((m, i) => {
      const b = grpcCalls(before[i] ?? '');
      const a = grpcCalls(after[i] ?? '');
      const methods = [...a.entries()]
        .map(([method, n]) => [method, n - (b.get(method) ?? 0)] as const)
        .filter(([, n]) => n > 0)
        .map(([method, n]) => `${method} ${n}`)
        .join(', ');
      const sent =
        counter(after[i] ?? '', 'etcd_network_client_grpc_sent_bytes_total') -
        counter(before[i] ?? '', 'etcd_network_client_grpc_sent_bytes_total');
      const received =
        counter(after[i] ?? '', 'etcd_network_client_grpc_received_bytes_total') -
        counter(before[i] ?? '', 'etcd_network_client_grpc_received_bytes_total');
      const clockRead = report.members.find((r) => r.name === m.name)?.clockOffsetMs !== null;
      return row([
        m.name,
        methods || 'none',
        `${sent} / ${received}`,
        `2 × /metrics (${Math.round((metricsBytes[i] ?? 0) / 1024)} KiB each), ${clockRead ? '10–13' : '0'} × /version (a few hundred bytes each)`,
      ]);
    });
    return [
      '## Probe cost of one diagnosis, per member (measured by etcd)',
      '',
      row(['member', 'gRPC calls it handled', 'gRPC bytes sent / received', 'HTTP GETs']),
      row(['---', '---', '---', '---']),
      ...rows,
      '',
      '- The only Range is a Get of the single key `health` (never a prefix, never the keyspace). MemberList and Alarm are sent to every member at once and the first answer is used, so a hung member costs nothing.',
      '- The /metrics text dominates the bytes; the two scrapes are what make the fsync p99 describe the last few seconds.',
      '',
    ].join('\n');
  } finally {
    await doctor.close();
    await lab.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchProbeCost());
