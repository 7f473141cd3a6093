import { readFileSync, readdirSync } from 'node:fs';

/** The largest resident set a process reached (VmHWM), by pid, with its command line. */
export interface ProcessPeak {
  pid: number;
  command: string;
  peakBytes: number;
}

export interface PeakRssWatch {
  /** Stops polling and returns every process seen, largest peak first (the root's read once more). */
  stop(): ProcessPeak[];
}

function statusKib(pid: number, field: string): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib);
  } catch {
    return undefined;
  }
}

/** `pid`'s children, from every one of its threads (a worker thread may spawn too). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
        .split(' ')
        .filter((s) => s.trim() !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 200);
  } catch {
    return '?';
  }
}

/**
 * Polls the peak RSS (VmHWM, the kernel's own high-water mark) of `rootPid` and of every process
 * below it every `periodMs`. The root's figure is exact (read again at stop); a child that lived
 * between two polls is missed, one that grew after the last poll before it exited is seen at that
 * poll. An instrument, not a wait.
 */
export function watchPeakRss(rootPid: number, periodMs = 10): PeakRssWatch {
  const peaks = new Map<number, ProcessPeak>();
  const sample = (pid: number) => {
    const kib = statusKib(pid, 'VmHWM');
    if (kib === undefined) return;
    const known = peaks.get(pid);
    if (known) known.peakBytes = Math.max(known.peakBytes, kib * 1024);
    else peaks.set(pid, { pid, command: commandOf(pid), peakBytes: kib * 1024 });
  };
  const poll = () => {
    const pending = [rootPid];
    for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
      sample(pid);
      pending.push(...childrenOf(pid));
    }
  };
  poll();
  const timer = setInterval(poll, periodMs);
  return {
    stop() {
      clearInterval(timer);
      poll();
      return [...peaks.values()].sort((a, b) => b.peakBytes - a.peakBytes);
    },
  };
}
