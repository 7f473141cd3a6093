import type { Etcd3, Watcher } from 'etcd3';

export interface ChurnWindow {
  /** Writes (puts and deletes) seen, per key; the caller groups them by resource. */
  writes: number;
  /** How long the watch listened, in ms (0 when it never started). */
  windowMs: number;
  /** It stopped at the event cap before the window ended. */
  capped: boolean;
  /** Why there is no window, when the watch could not start. */
  failure?: string;
}

export interface ChurnOptions {
  /** Watch from this revision on (the scan's), so the window starts where the scan does. */
  fromRevision: number;
  windowMs: number;
  /** Stop after this many events: a write storm is seen within the first of them. */
  maxEvents: number;
  /** The watch must be established within this long. */
  startTimeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Writes over a short window, from a watch on the whole keyspace on one member (a follower: watch
 * events are sent by the member the stream is open to). Each write's key goes to `onWrite`. The
 * watch is cancelled at the end of the window, at the event cap, or on abort; one that does not
 * start in time is a failure said in words, never a hang.
 */
export async function watchChurn(
  client: Etcd3,
  opts: ChurnOptions,
  onWrite: (key: Buffer) => void,
): Promise<ChurnWindow> {
  let watcher: Watcher | undefined;
  const creating = client
    .watch()
    // A range from "\0" to "\0": every key (rpc.proto WatchCreateRequest range_end).
    .inRange({ start: Buffer.from([0]), end: Buffer.from([0]) })
    .startRevision(String(opts.fromRevision))
    .create();
  let timer: NodeJS.Timeout | undefined;
  try {
    const started = await Promise.race([
      creating,
      new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), opts.startTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (started === 'late') {
      creating.then((w) => w.cancel()).catch(() => undefined);
      return {
        writes: 0,
        windowMs: 0,
        capped: false,
        failure: `the watch did not start in ${opts.startTimeoutMs} ms`,
      };
    }
    watcher = started;
    return await listen(started, opts, onWrite);
  } catch (err) {
    return {
      writes: 0,
      windowMs: 0,
      capped: false,
      failure: err instanceof Error ? err.message : String(err),
    };
  } finally {
    clearTimeout(timer);
    await watcher?.cancel().catch(() => undefined);
  }
}

function listen(watcher: Watcher, opts: ChurnOptions, onWrite: (key: Buffer) => void): Promise<ChurnWindow> {
  const started = Date.now();
  let writes = 0;
  return new Promise<ChurnWindow>((resolve) => {
    const finish = (capped: boolean, failure?: string) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', aborted);
      watcher.removeAllListeners('data');
      resolve({ writes, windowMs: Date.now() - started, capped, ...(failure ? { failure } : {}) });
    };
    const aborted = () => finish(false, 'cancelled');
    const timer = setTimeout(() => finish(false), opts.windowMs);
    opts.signal?.addEventListener('abort', aborted, { once: true });
    watcher.on('data', (res) => {
      for (const event of res.events) {
        onWrite(event.kv.key);
        writes += 1;
        if (writes >= opts.maxEvents) return finish(true);
      }
    });
    watcher.on('error', (err) => finish(false, err.message));
  });
}
