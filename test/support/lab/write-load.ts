import type { WriteLoadOptions } from './etcd-ops.js';

export type LoadCounts = { puts: number; errors: number };

/** Puts that prove the load reaches the members: the leader committed them through quorum. */
const FIRST_PUTS = 10;
/** A quorum that cannot commit 10 small puts in 10 s is no longer the scenario under test. */
const START_MS = 10_000;

/**
 * Starts `lab.writeLoad(opts)` and resolves once its first `firstPuts` puts succeeded (an event,
 * not a guess at how long a loaded host takes to start the load). `done` is the whole load.
 * Rejects, with what was seen, when the load ends or `timeoutMs` passes before that.
 */
export function writeLoadStarted(
  lab: { writeLoad(opts: WriteLoadOptions): Promise<LoadCounts> },
  opts: WriteLoadOptions,
  { firstPuts = FIRST_PUTS, timeoutMs = START_MS } = {},
): Promise<{ done: Promise<LoadCounts> }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      then();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(new Error(`the write load had not made ${firstPuts} puts after ${timeoutMs} ms`)),
        ),
      timeoutMs,
    );
    const done = lab.writeLoad({
      ...opts,
      onPut: (puts) => {
        opts.onPut?.(puts);
        if (puts >= firstPuts) settle(() => resolve({ done }));
      },
    });
    done.then(
      (c) =>
        settle(() =>
          c.puts >= firstPuts
            ? resolve({ done })
            : reject(
                new Error(
                  `the write load ended after ${c.puts} puts (${c.errors} errors), short of ${firstPuts}`,
                ),
              ),
        ),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}
