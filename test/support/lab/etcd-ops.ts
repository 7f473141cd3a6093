import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import { type TlsMaterial, tlsChannelOptions } from '../../../src/clients/grpc-tls.js';

/**
 * Client-side operations the lab drives against its cluster. Each operation builds its own
 * etcd3 client and closes it: a NOSPACE-rejected put trips etcd3's per-host circuit breaker for
 * 5 s, which must not leak into the next operation.
 */

const CALL_DEADLINE_MS = 5000;
/** etcdctl's default dial timeout. */
const DIAL_TIMEOUT_MS = 2000;
/** etcd 3.4 rejects requests over 1.5 MiB (--max-request-bytes). */
const MAX_VALUE_BYTES = 1024 * 1024;
/** Caps open-loop load so a stalled cluster cannot pile up unbounded requests. */
const MAX_IN_FLIGHT = 64;
const MAX_RATE_PER_SECOND = 5000;

export interface WriteLoadOptions {
  ratePerSecond: number;
  durationMs: number;
  valueBytes?: number;
  keyPrefix?: string;
  /** Called after each put that succeeded, with the count so far: lets a test wait for the load to start. */
  onPut?: (puts: number) => void;
}

export interface FillOptions {
  valueBytes: number;
  maxPuts: number;
  keyPrefix?: string;
  /** Overwrite one key (`<prefix>0`) each time: the space fills with history, not live data. */
  sameKey?: boolean;
}

export interface MemberStatus {
  memberId: string;
  /** "0" when the member knows no leader. */
  leaderId: string;
  raftTerm: bigint;
  dbSizeBytes: number;
  dbSizeInUseBytes: number;
  isLearner: boolean;
}

/** The lab's client credentials, for a TLS lab (`--client-cert-auth`); undefined for plain HTTP. */
export type LabTlsMaterial = TlsMaterial | undefined;

async function withClient<T>(
  hosts: string[],
  tls: LabTlsMaterial,
  use: (client: Etcd3) => Promise<T>,
): Promise<T> {
  // The channel override speaks TLS (without an IP as SNI); etcd3 itself is told plain http.
  const client = tls
    ? new Etcd3({
        hosts: hosts.map((h) => h.replace(/^https:/, 'http:')),
        dialTimeout: DIAL_TIMEOUT_MS,
        grpcOptions: tlsChannelOptions(tls),
      })
    : new Etcd3({ hosts, dialTimeout: DIAL_TIMEOUT_MS });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/** An absolute deadline: etcd3 retries recoverable errors, and a retry past it fails at once. */
function deadline(ms: number = CALL_DEADLINE_MS): { deadline: Date } {
  return { deadline: new Date(Date.now() + ms) };
}

export function isNoSpaceError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('database space exceeded');
}

/** Member name -> member ID (decimal uint64 string, as etcd's gRPC API returns it). */
export function readMemberIds(endpoints: string[], tls?: LabTlsMaterial): Promise<Map<string, string>> {
  return withClient(endpoints, tls, async (client) => {
    const res = await client.cluster.memberList({}, deadline());
    return new Map(res.members.map((m) => [m.name, m.ID]));
  });
}

/** One member's own Status; undefined when it did not answer in time. */
export async function readStatus(
  endpoint: string,
  timeoutMs: number,
  tls?: LabTlsMaterial,
): Promise<MemberStatus | undefined> {
  try {
    return await withClient([endpoint], tls, async (client) => {
      const status = await client.maintenance.status(deadline(timeoutMs));
      return {
        memberId: status.header.member_id,
        leaderId: status.leader,
        raftTerm: BigInt(status.raftTerm),
        dbSizeBytes: Number(status.dbSize),
        dbSizeInUseBytes: Number(status.dbSizeInUse),
        isLearner: Boolean(status.isLearner),
      };
    });
  } catch {
    return undefined;
  }
}

/** Open-loop puts at a fixed rate for a fixed time; failures are counted, never thrown. */
export async function writeLoad(
  endpoints: string[],
  opts: WriteLoadOptions,
  tls?: LabTlsMaterial,
): Promise<{ puts: number; errors: number }> {
  assertRange('ratePerSecond', opts.ratePerSecond, 0.001, MAX_RATE_PER_SECOND);
  assertRange('durationMs', opts.durationMs, 0, 60 * 60 * 1000);
  const total = Math.floor((opts.ratePerSecond * opts.durationMs) / 1000);
  const intervalMs = 1000 / opts.ratePerSecond;
  const value = randomValue(opts.valueBytes ?? 1024);
  const prefix = opts.keyPrefix ?? 'lab/load/';
  const counts = { puts: 0, errors: 0 };
  await withClient(endpoints, tls, async (client) => {
    const startedAt = Date.now();
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; i < total; i++) {
      await sleep(Math.max(0, startedAt + i * intervalMs - Date.now()));
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
      const put = tryPut(client, `${prefix}${i}`, value).then((ok) => {
        if (!ok) {
          counts.errors++;
          return;
        }
        // Counted first: an optional call's arguments are not evaluated when there is no callback.
        counts.puts++;
        opts.onPut?.(counts.puts);
      });
      inFlight.add(put);
      void put.finally(() => inFlight.delete(put));
    }
    await Promise.all(inFlight);
  });
  return counts;
}

async function tryPut(client: Etcd3, key: string, value: Buffer): Promise<boolean> {
  try {
    await client.put(key).value(value).options(deadline()).exec();
    return true;
  } catch {
    return false;
  }
}

/** Consecutive non-NOSPACE failures that fill() tolerates (e.g. during a leader election) before giving up. */
const FILL_MAX_TRANSIENT_ERRORS = 3;

/** Sequential puts until etcd answers NOSPACE ("mvcc: database space exceeded") or maxPuts is reached. */
export async function fill(
  endpoints: string[],
  opts: FillOptions,
  tls?: LabTlsMaterial,
): Promise<{ puts: number; nospace: boolean }> {
  assertRange('valueBytes', opts.valueBytes, 1, MAX_VALUE_BYTES);
  assertRange('maxPuts', opts.maxPuts, 0, 1_000_000);
  const value = randomValue(opts.valueBytes);
  const prefix = opts.keyPrefix ?? 'lab/fill/';
  return withClient(endpoints, tls, async (client) => {
    let puts = 0;
    let transientErrors = 0;
    while (puts < opts.maxPuts) {
      try {
        await client
          .put(`${prefix}${opts.sameKey ? 0 : puts}`)
          .value(value)
          .options(deadline())
          .exec();
        puts++;
        transientErrors = 0;
      } catch (err) {
        if (isNoSpaceError(err)) return { puts, nospace: true };
        if (++transientErrors > FILL_MAX_TRANSIENT_ERRORS) {
          throw new Error(`fill failed after ${puts} puts`, { cause: err });
        }
      }
    }
    return { puts, nospace: false };
  });
}

const FRAGMENT_VALUE_BYTES = 128 * 1024;
const FRAGMENT_CONCURRENCY = 4;

/**
 * Writes about `bytes` under a private prefix, deletes it all and compacts to the current revision.
 * bbolt keeps the freed pages, so every member's dbSize stays high while dbSizeInUse drops.
 */
export async function fragment(
  endpoints: string[],
  opts: { bytes: number },
  tls?: LabTlsMaterial,
): Promise<void> {
  assertRange('bytes', opts.bytes, 1, 8 * 1024 * 1024 * 1024);
  const prefix = `lab/fragment/${Date.now()}/`;
  const value = randomValue(Math.min(FRAGMENT_VALUE_BYTES, opts.bytes));
  const puts = Math.ceil(opts.bytes / value.length);
  await withClient(endpoints, tls, async (client) => {
    await runPool(puts, FRAGMENT_CONCURRENCY, (i) =>
      client.put(`${prefix}${i}`).value(value).options(deadline()).exec(),
    );
    const deleted = await client.delete().prefix(prefix).options(deadline()).exec();
    // physical: the call returns once the compaction has been applied to the serving member's bbolt file.
    await client.kv.compact({ revision: deleted.header.revision, physical: true }, deadline(30_000));
    await releaseFreedPages(client, endpoints, prefix, tls);
  });
}

/** etcd's backend commits its batch every 100 ms (--backend-batch-interval default). */
const BACKEND_COMMIT_INTERVAL_MS = 100;
const RELEASE_TIMEOUT_MS = 5000;

/**
 * bbolt counts pages freed by the compaction as in use until a later write transaction commits,
 * and etcd commits only when something was written. So write a marker until every member that
 * answers shows most of its file free (bounded; a hung member is not waited for).
 */
async function releaseFreedPages(
  client: Etcd3,
  endpoints: string[],
  prefix: string,
  tls: LabTlsMaterial,
): Promise<void> {
  const giveUpAt = Date.now() + RELEASE_TIMEOUT_MS;
  do {
    await client.put(`${prefix}release-marker`).value('x').options(deadline()).exec();
    await sleep(2 * BACKEND_COMMIT_INTERVAL_MS);
  } while (!(await mostlyFree(endpoints, tls)) && Date.now() < giveUpAt);
  await client.delete().key(`${prefix}release-marker`).options(deadline()).exec();
}

async function mostlyFree(endpoints: string[], tls: LabTlsMaterial): Promise<boolean> {
  const statuses = await Promise.all(endpoints.map((endpoint) => readStatus(endpoint, 1000, tls)));
  return statuses.every((s) => s === undefined || s.dbSizeInUseBytes * 2 <= s.dbSizeBytes);
}

/** Runs task(0..count-1) with at most `concurrency` in flight; the first failure rejects. */
async function runPool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Random bytes, so no layer between us and bbolt can shrink the value. */
function randomValue(bytes: number): Buffer {
  assertRange('valueBytes', bytes, 1, MAX_VALUE_BYTES);
  return randomBytes(bytes);
}

function assertRange(name: string, value: number, min: number, max: number): void {
  if (!(Number.isFinite(value) && value >= min && value <= max)) {
    throw new RangeError(`${name} must be between ${min} and ${max}, got ${value}`);
  }
}
