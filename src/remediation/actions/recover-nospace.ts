import { createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { EtcdClients } from '../../clients/etcd-clients.js';
import { formatBytes } from '../../format.js';
import { type ActionContext, done, failed, refused, defineAction } from '../action.js';
import { type ClusterState, callOpts, isHealthy, quorumGuard, readClusterState } from './cluster-state.js';
import { defragmentInOrder, orderText } from './etcd-members.js';
import { grpcDeadline } from '../../clients/grpc-deadline.js';

/**
 * KB R4 (etcd FAQ, maintenance guide "Space quota"), with R1 first: snapshot, compact to the
 * current revision, defragment every member (R3 order), disarm the alarms, then prove a write works.
 * Every call goes through the maintenance clients: a put rejected for NOSPACE must not make the
 * client refuse the calls that fix it.
 */
export const recoverNospace = defineAction({
  id: 'recover-nospace',
  label: 'Recover from NOSPACE',
  access: 'responders',
  sideEffects: [
    'etcd: a snapshot written to remediation.snapshotDir on the worker',
    'etcd: Compact to the current revision (history before it is gone)',
    'etcd: Defragment every member, one at a time, leader last',
    'etcd: Alarm Deactivate NOSPACE, then a put and delete of one key under etcd-doctor/',
  ],
  needsConfirmation: true,
  argsSchema: z.object({}),
  describe(_args, s) {
    return [
      `1. Snapshot the keyspace to the worker's snapshot directory. 2. Compact to the current revision. 3. Defragment ${orderText(
        s.members.map((m) => m.name),
        s.leader,
      )}, one at a time. 4. Disarm NOSPACE. 5. Check that a write works.`,
      'Reads keep working throughout; writes come back at step 4. Compaction drops the key history before the current revision.',
    ];
  },
  async run(_args, ctx) {
    const etcd = await ctx.clients.etcd();
    const state = await readClusterState(etcd);
    const problem = quorumGuard(state, 'recover from NOSPACE');
    if (problem) return refused(problem);
    const lines: string[] = [];
    const step = async (line: string) => {
      lines.push(line);
      await ctx.progress(line);
    };
    const source = state.members.find((m) => m.isLeader && isHealthy(m)) ?? state.members.find(isHealthy);
    if (!source) return refused('no healthy member to snapshot from');
    const revision = Math.max(...state.members.map((m) => m.revision ?? 0));

    if (ctx.dryRun) {
      await step(`would snapshot ${source.name} to ${ctx.settings.snapshotDir}`);
      await step(`would compact to revision ${revision}`);
    } else {
      await step(await snapshot(etcd, source.endpoint, ctx));
      await ctx.safePoint(`compacting to revision ${revision}`);
      await step(await compact(etcd, source.endpoint, revision, ctx));
    }
    const defrag = await defragmentInOrder(etcd, await readClusterState(etcd), ctx);
    lines.push(...defrag.lines);
    if (!defrag.ok) return failed(defrag.stopped ?? 'defragmentation stopped', lines);
    if (ctx.dryRun) {
      await step('would disarm NOSPACE and check that a write works');
      return done(`would recover ${ctx.cluster.name} from NOSPACE`, lines);
    }
    await ctx.safePoint('disarming NOSPACE');
    await step(await disarm(etcd, source.endpoint));
    const write = await checkWrite(etcd, ctx);
    await step(write.line);
    if (!write.ok) return failed('the alarm is disarmed but a write still fails', lines);
    return done(`recovered ${ctx.cluster.name} from NOSPACE: writes work again`, lines);
  },
});

/** Snapshots hold every key, Secrets included: only the worker's user may read them. */
const SNAPSHOT_MODE = 0o600;

async function snapshot(etcd: EtcdClients, endpoint: string, ctx: ActionContext): Promise<string> {
  const dir = ctx.settings.snapshotDir;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date(ctx.now()).toISOString().replace(/[:.]/g, '-');
  const file = join(dir, `${ctx.cluster.name}-${stamp}.db`);
  const stream = await etcd
    .forEndpoint(endpoint)
    .admin.maintenance.snapshot(grpcDeadline(ctx.settings.etcdCallTimeoutMs));
  await pipeline(
    Readable.from(snapshotChunks(stream)),
    createWriteStream(file, { flags: 'wx', mode: SNAPSHOT_MODE }),
  );
  // The mode of a new file is masked by the umask; set it outright.
  await chmod(file, SNAPSHOT_MODE);
  const bytes = (await stat(file)).size;
  if (bytes === 0) throw new Error(`the snapshot ${file} is empty`);
  const removed = await keepNewest(dir, ctx.cluster.name, basename(file), ctx.settings.snapshotKeep);
  const kept = `keeping the newest ${ctx.settings.snapshotKeep} of ${ctx.cluster.name} there${removed ? `, ${removed} older removed` : ''}`;
  const saved = `snapshot of ${endpoint} saved on ${hostname()}: ${file} (${formatBytes(bytes)}, mode 600; ${kept}).`;
  const namespace = await podNamespace();
  // Only a worker in a pod loses the file with the pod; elsewhere (the demo, a VM) it stays where it is.
  if (!namespace) return saved;
  return `${saved} Copy it off before the worker pod goes away: kubectl cp ${namespace}/${hostname()}:${file} ./${basename(file)}`;
}

/** Every pod with a service-account token has this file; the worker Deployment mounts one. */
const POD_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The namespace of the worker's pod, or undefined when the worker does not run in one. */
async function podNamespace(): Promise<string | undefined> {
  try {
    const text = (await readFile(POD_NAMESPACE_FILE, 'utf8')).trim();
    return /^[a-z0-9-]{1,63}$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** `<cluster>-<ISO time with : and . as ->.db`, as `snapshot` names them. */
const SNAPSHOT_STAMP = String.raw`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z`;

/**
 * Deletes all but the newest `keep` snapshots of this cluster (names sort by their timestamp), never
 * `fresh`, the one just written. Only names of exactly this cluster's pattern count: `prod-` as a
 * prefix would also match `prod-eu-…`, another cluster's snapshots.
 */
async function keepNewest(dir: string, cluster: string, fresh: string, keep: number): Promise<number> {
  const pattern = new RegExp(`^${cluster}-${SNAPSHOT_STAMP}\\.db$`);
  const others = (await readdir(dir)).filter((f) => pattern.test(f) && f !== fresh).sort();
  const old = others.slice(0, Math.max(0, others.length - Math.max(0, keep - 1)));
  for (const f of old) await rm(join(dir, f), { force: true });
  return old.length;
}

/** The gRPC stream as an async iterable of its blobs. */
async function* snapshotChunks(stream: {
  on(event: 'data', fn: (item: { blob: Buffer }) => void): unknown;
  on(event: 'end', fn: () => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
}): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let ended = false;
  let error: Error | undefined;
  let wake: (() => void) | undefined;
  stream.on('data', (item) => {
    queue.push(Buffer.from(item.blob));
    wake?.();
  });
  stream.on('end', () => {
    ended = true;
    wake?.();
  });
  stream.on('error', (err) => {
    error = err;
    wake?.();
  });
  for (;;) {
    const next = queue.shift();
    if (next) {
      yield next;
      continue;
    }
    if (error) throw error;
    if (ended) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
}

async function compact(
  etcd: EtcdClients,
  endpoint: string,
  revision: number,
  ctx: ActionContext,
): Promise<string> {
  try {
    await etcd
      .forEndpoint(endpoint)
      .admin.kv.compact(
        { revision: String(revision), physical: true },
        grpcDeadline(ctx.settings.etcdCallTimeoutMs),
      );
    return `compacted to revision ${revision}`;
  } catch (err) {
    // Already compacted there (the apiserver compacts every 5 min): nothing left to do.
    if (/compacted/i.test(String(err))) return `revision ${revision} was already compacted`;
    throw err;
  }
}

async function disarm(etcd: EtcdClients, endpoint: string): Promise<string> {
  const m = etcd.forEndpoint(endpoint).admin.maintenance;
  const opts = () => grpcDeadline(5000);
  const listed = await m.alarm({ action: 'Get', memberID: '0', alarm: 'None' }, opts());
  const nospace = listed.alarms.filter(
    (a) => String(a.alarm as unknown) === 'Nospace' || Number(a.alarm) === 1,
  );
  for (const a of nospace)
    await m.alarm({ action: 'Deactivate', memberID: a.memberID, alarm: a.alarm }, opts());
  return nospace.length ? `disarmed NOSPACE on ${nospace.length} member(s)` : 'no NOSPACE alarm was active';
}

/** The put and delete that prove writes work, each with the action's deadline: a hung leader ends it. */
async function checkWrite(etcd: EtcdClients, ctx: ActionContext): Promise<{ ok: boolean; line: string }> {
  const key = `etcd-doctor/remediation-check/${ctx.planId}`;
  const state: ClusterState = await readClusterState(etcd);
  const leader = state.members.find((m) => m.isLeader) ?? state.members.find(isHealthy);
  if (!leader) return { ok: false, line: 'no member answers to check a write' };
  const client = etcd.forEndpoint(leader.endpoint).admin;
  await ctx.progress(`checking that a write works on ${leader.name}…`);
  try {
    await client.put(key).value(String(ctx.now())).options(callOpts(ctx)).exec();
    await client.delete().key(key).options(callOpts(ctx)).exec();
    return { ok: true, line: `a write works: put and deleted ${key}` };
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    if (/DEADLINE_EXCEEDED|deadline exceeded/i.test(text)) {
      const within = `did not answer within ${ctx.settings.etcdCallTimeoutMs} ms`;
      return { ok: false, line: `a write failed: a write to ${leader.name} (${leader.endpoint}) ${within}` };
    }
    return { ok: false, line: `a write failed: ${text}` };
  }
}
