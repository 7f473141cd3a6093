import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { procState, waitForStopped, waitForState } from '../support/lab/proc-state.js';

/**
 * The lab against real etcd: one 3-member cluster with a 16 MiB quota. The tests run in file
 * order and each leaves the cluster healthy again, except fill (NOSPACE) and destroy, which go last.
 */

const QUOTA_BYTES = 16 * 1024 * 1024;
const SLOW_FSYNC_MICROS = 200_000;

let lab: EtcdLab;

beforeAll(async () => {
  lab = await startEtcdLab({ quotaBackendBytes: QUOTA_BYTES });
});

afterAll(async () => {
  await lab?.destroy();
});

async function health(clientUrl: string, timeoutMs = 1000): Promise<string> {
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return ((await res.json()) as { health?: string }).health ?? 'missing';
  } catch (err) {
    return `failed: ${(err as Error).name}`;
  }
}

/** kill(pid, 0) only checks; a missing pid counts as dead (kill(-1, 0) would ask about every process). */
function isAlive(pid: number | undefined): boolean {
  if (pid === undefined || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function aFollower(): Promise<string> {
  const leader = await lab.leaderName();
  expect(leader).toBeDefined();
  const follower = lab.members.find((m) => m.name !== leader);
  if (!follower) throw new Error('lab has no follower');
  return follower.name;
}

async function putMillis(endpoint: string, key: string): Promise<number> {
  const startedAt = performance.now();
  const res = await lab.etcdctl(['put', key, 'v', `--endpoints=${endpoint}`]);
  expect(res).toMatchObject({ code: 0 });
  return performance.now() - startedAt;
}

/** The leader's name once one is elected: members can be mid-election a moment after a fault (bounded, 10 s). */
async function aLeader(): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const name = await lab.leaderName();
    if (name) return name;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no member knew a leader within 10 s');
}

async function medianPutMillis(endpoint: string, count: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await putMillis(endpoint, `lab-test/latency/${i}`));
  samples.sort((a, b) => a - b);
  return samples[Math.floor(count / 2)] ?? Number.NaN;
}

/** WAL fsync _sum and _count from one member's own metrics listener. */
async function walFsync(metricsUrl: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(3000) })).text();
  const read = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    sum: read('etcd_disk_wal_fsync_duration_seconds_sum'),
    count: read('etcd_disk_wal_fsync_duration_seconds_count'),
  };
}

describe('etcd lab', () => {
  test('runs the etcd this lane tests, as its members report it (scripts/test.sh ETCD_DOCTOR_LAB_ETCD)', async () => {
    const lane = process.env.ETCD_DOCTOR_LAB_ETCD;
    const res = await fetch(`${lab.endpoints[0]}/version`, { signal: AbortSignal.timeout(3000) });
    const served = ((await res.json()) as { etcdserver?: string }).etcdserver ?? '';
    expect(served).toMatch(/^3\.\d+\.\d+$/);
    if (lane) expect(`${served}.`.startsWith(`${lane}.`)).toBe(true);
    // CI names the lane of both its runs: a run without one is a developer's, on whatever etcd is on PATH.
    if (process.env.CI === 'true') expect(lane).toMatch(/^3\.[45]$/);
  });

  test('starts three members on distinct ports that all report healthy', async () => {
    expect(lab.members.map((m) => m.name)).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(new Set([...lab.endpoints, ...lab.metricsUrls, ...lab.members.map((m) => m.peerUrl)]).size).toBe(
      9,
    );
    expect(await Promise.all(lab.endpoints.map((url) => health(url)))).toEqual(['true', 'true', 'true']);
    for (const m of lab.members) expect(isAlive(m.pid)).toBe(true);
    expect(lab.logs('etcd-1')).toContain('"msg":');
    expect(lab.members.map((m) => m.name)).toContain(await lab.leaderName());
  });

  test('a killed member leaves a cluster that still commits; restart brings it back', async () => {
    const victim = lab.member(await aFollower());
    const pid = victim.pid;
    expect(isAlive(pid)).toBe(true);
    await lab.kill(victim.name);
    expect(isAlive(pid)).toBe(false);
    expect(victim.pid).toBeUndefined();
    const survivors = lab.endpoints.filter((url) => url !== victim.clientUrl).join(',');
    expect(await lab.etcdctl(['put', 'lab-test/after-kill', 'v', `--endpoints=${survivors}`])).toMatchObject({
      code: 0,
    });
    await lab.restart(victim.name);
    expect(victim.pid).not.toBe(pid);
    expect(await health(victim.clientUrl)).toBe('true');
  });

  test('a SIGSTOPped member times out on /health while the others answer', async () => {
    const hung = lab.member(await aFollower());
    const other = lab.members.find((m) => m.name !== hung.name && m.pid !== undefined);
    lab.stop(hung.name);
    try {
      // The kernel's word that the process stopped comes first (CI once got an answer right after the signal).
      expect(await waitForStopped(hung.pid ?? -1, 2000)).toMatch(/^[Tt]$/);
      expect(await health(hung.clientUrl, 1000)).toBe('failed: TimeoutError');
      expect(await health(other?.clientUrl ?? '', 1000)).toBe('true');
    } finally {
      lab.cont(hung.name);
    }
    expect(await health(hung.clientUrl, 3000)).toBe('true');
  });

  test('slowDisk on the leader slows puts and its WAL fsyncs, and stop() undoes it', async () => {
    const leader = lab.member(await aLeader());
    const before = await medianPutMillis(leader.clientUrl, 10);
    const fsyncBefore = await walFsync(leader.metricsUrl);
    const fault = await lab.slowDisk(leader.name, SLOW_FSYNC_MICROS);
    let after: number;
    let fsyncAfter: { sum: number; count: number };
    try {
      after = await medianPutMillis(leader.clientUrl, 10);
      fsyncAfter = await walFsync(leader.metricsUrl);
    } finally {
      await fault.stop();
    }
    expect(after).toBeGreaterThan(before + 100);
    const meanFsyncSeconds = (fsyncAfter.sum - fsyncBefore.sum) / (fsyncAfter.count - fsyncBefore.count);
    expect(meanFsyncSeconds).toBeGreaterThan(0.15);
    expect(isAlive(leader.pid)).toBe(true);
    // Undone: its fsyncs are fast again. Their own duration, not a put's (a put through etcdctl
    // is a process start, which a loaded host makes slower than the 100 ms a put gained).
    const fsyncUndone = await walFsync(leader.metricsUrl);
    await medianPutMillis(leader.clientUrl, 3);
    const fsyncLater = await walFsync(leader.metricsUrl);
    expect(fsyncLater.count).toBeGreaterThan(fsyncUndone.count);
    expect((fsyncLater.sum - fsyncUndone.sum) / (fsyncLater.count - fsyncUndone.count)).toBeLessThan(0.05);
  });

  test('cpuStarve stops the member at once and stop() leaves it running', async () => {
    const member = lab.member(await aFollower());
    const starve = lab.cpuStarve(member.name, { runMs: 100, stopMs: 300 });
    try {
      expect(await waitForState(member.pid, 'T', 250)).toBe('T');
    } finally {
      await starve.stop();
    }
    expect(procState(member.pid ?? -1)).not.toBe('T');
    expect(await health(member.clientUrl, 3000)).toBe('true');
  });

  test('moveLeader hands leadership to the named member', async () => {
    const target = await aFollower();
    await lab.moveLeader(target);
    expect(await lab.leaderName()).toBe(target);
  });

  test('writeLoad issues the requested number of puts at the requested rate', async () => {
    const startedAt = performance.now();
    const result = await lab.writeLoad({ ratePerSecond: 50, durationMs: 1000, valueBytes: 512 });
    expect(result).toEqual({ puts: 50, errors: 0 });
    expect(performance.now() - startedAt).toBeGreaterThan(950);
  });

  test('fragment leaves dbSize far above dbSizeInUse', async () => {
    await lab.fragment({ bytes: 4 * 1024 * 1024 });
    const res = await lab.etcdctl(['endpoint', 'status', '-w', 'json']);
    expect(res.code).toBe(0);
    const statuses = JSON.parse(res.stdout) as { Status: { dbSize: number; dbSizeInUse: number } }[];
    expect(statuses).toHaveLength(3);
    for (const { Status } of statuses) {
      expect(Status.dbSize).toBeGreaterThan(4 * 1024 * 1024);
      expect(Status.dbSizeInUse).toBeLessThan(Status.dbSize / 4);
    }
  });

  test('fill with a 16 MiB quota reaches NOSPACE and raises the alarm', async () => {
    const result = await lab.fill({ valueBytes: 100_000, maxPuts: 400 });
    expect(result.nospace).toBe(true);
    expect(result.puts).toBeGreaterThan(50);
    expect((await lab.etcdctl(['alarm', 'list'])).stdout).toContain('alarm:NOSPACE');
  });

  test('destroy ends every process it started and removes the data dirs', async () => {
    const pids = lab.members.map((m) => m.pid);
    expect(pids.filter(isAlive)).toHaveLength(3);
    const dataDirs = lab.members.map((m) => m.dataDir);
    await lab.destroy();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(dataDirs.filter((dir) => existsSync(dir))).toEqual([]);
    await expect(lab.destroy()).resolves.toBeUndefined();
  });
});
