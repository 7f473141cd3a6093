import { type ChildProcess, spawn } from 'node:child_process';
import { connect as connectHttp2 } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import { findEtcdBinary, findEtcdctlBinary, findSiblingEtcdctl } from './binaries.js';
import { httpGet } from './http-get.js';
import type { EtcdLab } from './lab-api.js';
import { runCommand } from './run-command.js';

/**
 * Client load of the shapes issue 39 names, driven from outside the test process (etcdctl in
 * bounded shell loops), so etcd-doctor's own event loop, which runs in this process, is not the one
 * that stalls. Every loop ends by itself (a count and GNU timeout) and every process is killed by
 * its group on stop().
 */

export interface RunningLoad {
  stop(): Promise<void>;
}

/** The etcdctl that matches the lab's etcd (ETCD_VERSION=3.5 puts its own in front of PATH). */
export async function labEtcdctl(): Promise<string> {
  const etcd = await findEtcdBinary();
  const etcdctl = (etcd && (await findSiblingEtcdctl(etcd))) ?? (await findEtcdctlBinary());
  if (!etcdctl) throw new Error('etcdctl not found');
  return etcdctl;
}

/**
 * `count` keys under `prefix` of `valueBytes` each, many to a Txn: Kubernetes-shaped keys
 * (`/registry/pods/<namespace>/<name>`) for the range storm.
 */
export async function seedKeys(
  endpoint: string,
  opts: { prefix: string; count: number; valueBytes: number },
): Promise<void> {
  const client = new Etcd3({ hosts: [endpoint], dialTimeout: 2000 });
  const value = Buffer.alloc(opts.valueBytes, 'p');
  try {
    // At most 100 puts (etcd's --max-txn-ops is 128) and about 1 MB (--max-request-bytes 1.5 MiB) a Txn.
    const perTxn = Math.max(1, Math.min(100, Math.floor(1e6 / opts.valueBytes)));
    for (let start = 0; start < opts.count; start += perTxn) {
      const success = [];
      for (let i = start; i < Math.min(opts.count, start + perTxn); i++)
        success.push({ request_put: { key: Buffer.from(`${opts.prefix}ns-${i % 50}/pod-${i}`), value } });
      await client.kv.txn({ success });
    }
  } finally {
    client.close();
  }
}

/** Spawns `sh -c script` in its own process group; stop() kills the group. */
function shellLoop(script: string, env: Record<string, string>): ChildProcess {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore', env });
  child.unref();
  return child;
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    return;
  }
  await Promise.race([exited, sleep(5000)]);
}

const ETCDCTL_ENV = (): Record<string, string> => ({ ETCDCTL_API: '3', PATH: '/usr/bin:/bin' });

/**
 * `clients` shell loops, each reading the whole `prefix` from `endpoint` again and again
 * (`etcdctl get --prefix -w protobuf`, the answer thrown away), at most `maxSeconds`.
 */
export async function rangeStorm(
  endpoint: string,
  opts: { prefix: string; clients: number; maxSeconds: number },
): Promise<RunningLoad> {
  const etcdctl = await labEtcdctl();
  const read = `'${etcdctl}' --endpoints=${endpoint} --command-timeout=20s get --prefix '${opts.prefix}' -w protobuf >/dev/null`;
  const script = `end=$(( $(date +%s) + ${opts.maxSeconds} )); i=0; while [ $i -lt 100000 ] && [ $(date +%s) -lt $end ]; do ${read}; i=$((i+1)); done`;
  const loops = Array.from({ length: opts.clients }, () => shellLoop(script, ETCDCTL_ENV()));
  return { stop: async () => void (await Promise.all(loops.map(stopGroup))) };
}

/**
 * `count` watch streams of `prefix` on `endpoint` (plain HTTP lab) that never read: raw HTTP/2
 * gRPC calls whose streams are paused at once, so HTTP/2 flow control (64 KiB a stream) stops etcd's
 * sends, then its 128-response channel fills and the watchers become victims (mvcc/watchable_store.go).
 */
export async function stuckWatchers(
  endpoint: string,
  opts: { prefix: string; count: number },
): Promise<RunningLoad> {
  const session = connectHttp2(endpoint);
  session.on('error', () => undefined);
  const streams = Array.from({ length: opts.count }, () => {
    const stream = session.request({
      ':method': 'POST',
      ':path': '/etcdserverpb.Watch/Watch',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    stream.on('error', () => undefined);
    stream.pause();
    stream.write(grpcFrame(watchCreateRequest(opts.prefix)));
    return stream;
  });
  return {
    stop: async () => {
      await Promise.resolve();
      // destroy, not close: a paused stream never drains, so a graceful close would wait forever.
      for (const s of streams) s.destroy();
      session.destroy();
    },
  };
}

/** etcdserverpb.WatchRequest{create_request: {key: prefix, range_end: prefix + 1}}, hand-encoded. */
function watchCreateRequest(prefix: string): Buffer {
  const key = Buffer.from(prefix);
  const end = Buffer.from(key);
  end[end.length - 1] = (end[end.length - 1] ?? 0) + 1;
  const create = Buffer.concat([field(1, key), field(2, end)]);
  return field(1, create);
}

/** A length-delimited protobuf field (lengths under 128 bytes). */
function field(num: number, value: Buffer): Buffer {
  if (value.length >= 128) throw new Error('field too long for this encoder');
  return Buffer.concat([Buffer.from([(num << 3) | 2, value.length]), value]);
}

/** gRPC's message framing: no compression, 4-byte big-endian length. */
function grpcFrame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

/** Puts of `bytes` each sent to one member; resolves with the errors the client saw. */
export async function oversizedPuts(
  endpoint: string,
  opts: { count: number; bytes: number },
): Promise<string[]> {
  const errors: string[] = [];
  for (let i = 0; i < opts.count; i++) {
    // A client per put: etcd3's circuit breaker must not turn the next refusals into its own errors.
    const client = new Etcd3({ hosts: [endpoint], dialTimeout: 2000 });
    try {
      await client.put(`/registry/configmaps/default/big-${i}`).value(Buffer.alloc(opts.bytes, 'x'));
      errors.push('accepted');
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    } finally {
      client.close();
    }
  }
  return errors;
}

/** `prlimit --nofile=<n>:<n>` on a running process. */
export async function lowerFdLimit(pid: number, limit: number): Promise<void> {
  const res = await runCommand('prlimit', [`--pid=${pid}`, `--nofile=${limit}:${limit}`], {
    timeoutMs: 5000,
  });
  if (res.code !== 0) throw new Error(`prlimit failed (${res.code}): ${res.stderr.trim()}`);
}

/** Idle TCP connections to `url`'s host and port, held open until release(). */
export async function holdConnections(url: string, count: number): Promise<{ release(): void }> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => {
      socket.once('connect', () => resolve());
      socket.once('error', () => resolve());
      socket.setTimeout(2000, () => resolve());
    });
    socket.setTimeout(0);
    sockets.push(socket);
  }
  return {
    release: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/** One value of a member's /metrics (an unlabelled sample), or undefined. */
export async function metricValue(lab: EtcdLab, member: string, name: string): Promise<number | undefined> {
  const index = lab.members.findIndex((m) => m.name === member);
  const res = await httpGet(`${lab.metricsUrls[index]}/metrics`, 3000);
  const line = res?.body.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : undefined;
}

/** Polls a member's /metrics until `done(value)` holds, at most `timeoutMs`; the last value seen. */
export async function waitForMetric(
  lab: EtcdLab,
  member: string,
  name: string,
  done: (value: number) => boolean,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<number | undefined> {
  const until = Date.now() + timeoutMs;
  let value: number | undefined;
  for (let i = 0; i < 300 && Date.now() < until; i++) {
    value = await metricValue(lab, member, name);
    if (value !== undefined && done(value)) return value;
    await sleep(everyMs);
  }
  throw new Error(`${member}'s ${name} did not get there in ${timeoutMs} ms (last ${value})`);
}

/**
 * Waits until a member has sent nothing to clients for a moment: two readings of its sent-bytes
 * counter 1 s apart are equal (a response that was on its way when the load was killed is done).
 */
export async function waitForQuietClients(lab: EtcdLab, member: string, timeoutMs = 30_000): Promise<void> {
  let last: number | undefined;
  await waitForMetric(
    lab,
    member,
    'etcd_network_client_grpc_sent_bytes_total',
    (v) => {
      const quiet = v === last;
      last = v;
      return quiet;
    },
    timeoutMs,
    1000,
  );
}
