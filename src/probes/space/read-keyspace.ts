import { type Etcd3, GRPCResourceExhastedError } from 'etcd3';
import { grpcDeadline } from '../../clients/grpc-deadline.js';

/** Where a read of the keyspace got to, and why it stopped short if it did. */
export interface KeyspaceRead {
  complete: boolean;
  keys: number;
  /** Key bytes (keys-only) or key + value bytes received. */
  bytesRead: number;
  durationMs: number;
  /** Ranges sent (pages, plus any retried with a smaller limit). */
  requests: number;
  /** Why it stopped before the end, in words ("the 60 s time box ran out"). */
  stoppedBecause?: string;
  /** The first key not read, when it stopped short. */
  nextKey?: string;
  /** The pinned revision was compacted while reading: the rest was read at the newest revision. */
  unpinned?: boolean;
}

export interface KeyspaceReadOptions {
  /** Every page reads this revision, so the pages add up to one point in time (0: the newest). */
  revision: number;
  keysOnly: boolean;
  /** The read never goes faster than this, on average from its start. */
  bytesPerSecond: number;
  /** `now()` past this ends the read, incomplete. */
  deadlineAt: number;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** After each page: keys and bytes so far. */
  onPage?: (progress: { keys: number; bytesRead: number }) => void;
  /** The exclusive end of the page that starts at `from` (default: the end of the keyspace). */
  pageEnd?: (from: Buffer, limit: number) => Buffer | undefined;
}

/** One range's own deadline: a member that stops answering ends the read, it does not hang it. */
const RANGE_TIMEOUT_MS = 10_000;
/** Keys-only pages are small per key (about 60 bytes): few pages, few walks of the index. */
const MAX_PAGE_KEYS = { keysOnly: 50_000, values: 10_000 };
/**
 * A page of about a twentieth of a second at the rate limit (250 kB at 5 MB/s), within these bounds:
 * small, evenly spaced reads rather than bursts, which the member's other work (the writes) would
 * feel in its tail latency.
 */
const MIN_PAGE_BYTES = 64 * 1024;
const MAX_PAGE_BYTES = 2 * 1024 * 1024;
/** Pages start small and at most double: one page of unknown keys may hold 10,000 values of 1.5 MiB. */
const FIRST_PAGE_KEYS = { keysOnly: 1000, values: 1 };
/** etcd's "required revision has been compacted" (mvcc ErrCompacted, rpctypes ErrGRPCCompacted). */
const COMPACTED = /required revision has been compacted/;

/** The key after `key` in byte order: where the next page starts. */
function after(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0])]);
}

/** range_end "\0" with a key: every key >= key (rpc.proto RangeRequest). */
const TO_THE_END = Buffer.from([0]);

/**
 * Reads every key (and, unless keysOnly, its value) of one member in pages: each a SERIALIZABLE
 * range (answered from that member's own store, no raft round trip, no leader involved) pinned to
 * one revision, sized to the rate limit, and paced so the average never exceeds it. It stops at the
 * deadline, on abort, or when the member stops answering, and says how far it got.
 *
 * etcd 3.4 and 3.5 walk their whole in-memory index from a range's key to its range_end for every
 * range, limit or not (mvcc treeIndex.Revisions counts the total): pages that all run to the end of
 * the keyspace cost the member O(keys) each. `pageEnd` bounds each page's range_end (the value
 * scan passes keys it saw in the keys-only scan), so the member walks only the page.
 */
export async function readKeyspace(
  kv: Etcd3,
  opts: KeyspaceReadOptions,
  onEntry: (key: Buffer, valueBytes: number) => void,
): Promise<KeyspaceRead> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  const pageBytes = Math.min(MAX_PAGE_BYTES, Math.max(MIN_PAGE_BYTES, opts.bytesPerSecond / 20));
  const maxKeys = opts.keysOnly ? MAX_PAGE_KEYS.keysOnly : MAX_PAGE_KEYS.values;
  const state = { keys: 0, bytesRead: 0, requests: 0, revision: opts.revision, unpinned: false };
  let from: Buffer = Buffer.from([0]);
  let limit = opts.keysOnly ? FIRST_PAGE_KEYS.keysOnly : FIRST_PAGE_KEYS.values;
  const result = (stoppedBecause?: string): KeyspaceRead => ({
    complete: stoppedBecause === undefined,
    keys: state.keys,
    bytesRead: state.bytesRead,
    durationMs: now() - started,
    requests: state.requests,
    ...(stoppedBecause ? { stoppedBecause, nextKey: from.toString('utf8') } : {}),
    ...(state.unpinned ? { unpinned: true } : {}),
  });
  for (;;) {
    if (opts.signal?.aborted) return result('it was cancelled');
    if (now() >= opts.deadlineAt) return result('its time box ran out');
    const end = opts.pageEnd?.(from, limit) ?? TO_THE_END;
    const page = await rangePage(
      kv,
      { from, end, limit, keysOnly: opts.keysOnly },
      state,
      now,
      opts.deadlineAt,
    );
    if (page.kind === 'stop') return result(page.why);
    if (page.kind === 'smaller') {
      if (limit === 1) return result('one value is larger than the 64 MiB a response may hold');
      limit = Math.max(1, Math.floor(limit / 2));
      continue;
    }
    for (const kvPair of page.kvs) {
      const valueBytes = opts.keysOnly ? 0 : kvPair.value.length;
      onEntry(kvPair.key, valueBytes);
      state.keys += 1;
      state.bytesRead += kvPair.key.length + valueBytes;
    }
    opts.onPage?.({ keys: state.keys, bytesRead: state.bytesRead });
    const last = page.kvs.at(-1);
    // Not `more` within a bounded page: that stretch is done, the next starts at its end.
    if (page.more && last) from = after(last.key);
    else if (end !== TO_THE_END) from = end;
    else return result();
    const perKey = state.bytesRead / Math.max(1, state.keys);
    limit = Math.min(maxKeys, 2 * limit, Math.max(1, Math.round(pageBytes / Math.max(1, perKey))));
    // Paced from the start: the average stays at or under the limit whatever each page holds.
    const wait = Math.min(started + (state.bytesRead / opts.bytesPerSecond) * 1000, opts.deadlineAt) - now();
    if (wait > 0) await sleep(wait);
  }
}

type Page =
  | { kind: 'page'; kvs: Array<{ key: Buffer; value: Buffer }>; more: boolean }
  | { kind: 'smaller' }
  | { kind: 'stop'; why: string };

interface PageAsk {
  from: Buffer;
  end: Buffer;
  limit: number;
  keysOnly: boolean;
}

async function rangePage(
  kv: Etcd3,
  ask: PageAsk,
  state: { requests: number; revision: number; unpinned: boolean },
  now: () => number,
  deadlineAt: number,
): Promise<Page> {
  state.requests += 1;
  try {
    const res = await kv.kv.range(
      {
        key: ask.from,
        range_end: ask.end,
        limit: ask.limit,
        revision: state.revision,
        serializable: true,
        keys_only: ask.keysOnly,
      },
      grpcDeadline(Math.min(deadlineAt - now(), RANGE_TIMEOUT_MS) + 1000),
    );
    return { kind: 'page', kvs: res.kvs, more: res.more };
  } catch (err) {
    if (err instanceof GRPCResourceExhastedError) return { kind: 'smaller' };
    const message = err instanceof Error ? err.message : String(err);
    if (COMPACTED.test(message) && state.revision !== 0) {
      // The apiserver compacts every 5 minutes: the rest is read at the newest revision, and said.
      state.revision = 0;
      state.unpinned = true;
      return rangePage(kv, ask, state, now, deadlineAt);
    }
    return { kind: 'stop', why: `the member stopped answering (${message})` };
  }
}

/** Keys in the whole keyspace at a revision (count_only: the member counts, nothing is sent). */
export async function countKeys(
  kv: Etcd3,
  revision: number,
  timeoutMs: number,
): Promise<{ count: number; revision: number }> {
  const res = await kv.kv.range(
    { key: Buffer.from([0]), range_end: Buffer.from([0]), count_only: true, serializable: true, revision },
    grpcDeadline(timeoutMs),
  );
  return { count: Number(res.count), revision: Number(res.header.revision) };
}

/**
 * The revision etcd last compacted at, 0 if never. Status has no such field, and /metrics has it
 * only as a debugging gauge; but a range at a revision below it fails with ErrCompacted and one at
 * or above it does not (mvcc kvstore_txn.go rangeKeys: `rev < compactMainRev`, on 3.4 and 3.5
 * alike, restored from the backend's scheduledCompactRev after a restart). So it is the smallest
 * revision a range still answers, found by bisection: a point lookup of one absent key, about
 * log2(revision) cheap calls.
 */
export async function findCompactRevision(
  kv: Etcd3,
  currentRevision: number,
  timeoutMs: number,
): Promise<{ compactRevision: number; requests: number }> {
  let requests = 0;
  const answers = async (revision: number): Promise<boolean> => {
    requests += 1;
    try {
      await kv.kv.range(
        {
          key: Buffer.from('\0etcd-doctor-compaction-probe'),
          revision,
          serializable: true,
          count_only: true,
        },
        grpcDeadline(timeoutMs),
      );
      return true;
    } catch (err) {
      if (COMPACTED.test(err instanceof Error ? err.message : String(err))) return false;
      throw err;
    }
  };
  if (currentRevision <= 1 || (await answers(1))) return { compactRevision: 0, requests };
  let low = 1; // fails
  let high = currentRevision; // answers
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await answers(mid)) high = mid;
    else low = mid;
  }
  return { compactRevision: high, requests };
}
