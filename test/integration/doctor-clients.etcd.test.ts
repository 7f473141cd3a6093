import { readdir, readFile, readlink } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Doctor } from '../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { labDoctor } from '../support/lab/lab-doctor.js';

/**
 * What a Doctor keeps open between runs, counted as this process's established TCP connections to
 * the members' client ports (/proc/self/fd sockets matched in /proc/net/tcp): a kept run
 * (interactive checks) leaves them warm; a digest-style run (`keepClients: false`) closes them when
 * it ends, unless a kept run shares them.
 */

let lab: EtcdLab;
let doctor: Doctor;

async function connections(): Promise<number> {
  const ports = new Set(lab.endpoints.map((e) => Number(new URL(e).port)));
  const inodes = new Set<string>();
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  let n = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const row of rows) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = row.trim().split(/\s+/);
      const remotePort = Number.parseInt(f[2]?.split(':')[1] ?? '', 16);
      if (f[3] === '01' && ports.has(remotePort) && inodes.has(f[9] ?? '')) n += 1;
    }
  }
  return n;
}

/** Polls until at most `most` connections are open (closing is asynchronous); returns the count. */
async function settlesAt(most: number): Promise<number> {
  const deadline = Date.now() + 3000;
  let n = await connections();
  while (n > most && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    n = await connections();
  }
  return n;
}

beforeAll(async () => {
  lab = await startEtcdLab();
  doctor = labDoctor(lab, { metricsWindowMs: 0 });
});

afterAll(async () => {
  await doctor?.close();
  await lab?.destroy();
});

describe('Doctor clients between runs', () => {
  it('closes the connections of a keepClients: false run, keeps those of a default run', async () => {
    expect(await connections()).toBe(0);
    const report = await doctor.run('lab', 'health', { keepClients: false });
    expect(report.members.every((m) => m.reachable)).toBe(true);
    expect(await settlesAt(0)).toBe(0);

    await doctor.run('lab', 'health');
    // One connection per member stays open for the next, warm, check.
    expect(await connections()).toBeGreaterThanOrEqual(3);
    // A keepClients: false run on kept clients leaves them kept.
    await doctor.run('lab', 'health', { keepClients: false });
    expect(await connections()).toBeGreaterThanOrEqual(3);

    await doctor.close();
    expect(await settlesAt(0)).toBe(0);
  });

  it('two runs at once share one set of connections, closed when the last one ends', async () => {
    const [a, b] = await Promise.all([
      doctor.run('lab', 'diagnose', { keepClients: false }),
      doctor.run('lab', 'health', { keepClients: false }),
    ]);
    expect(a.cluster).toBe('lab');
    expect(b.members.every((m) => m.reachable)).toBe(true);
    expect(await settlesAt(0)).toBe(0);
  });
});
