import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../../../src/cli.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { labConfigYaml } from '../../support/lab/lab-config.js';
import { watchRunQueueWait } from '../../support/process/host-load.js';

/** `etcd-doctor watch <cluster>` on a real 3-member etcd: a frame per check, one line on Ctrl-C. */

let lab: EtcdLab;
let dir: string;
let configPath: string;

beforeAll(async () => {
  lab = await startEtcdLab();
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-watch-cli-'));
  configPath = join(dir, 'clusters.yaml');
  await writeFile(configPath, labConfigYaml(lab));
});

afterAll(async () => {
  await lab?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('etcd-doctor watch', () => {
  it('prints a frame per interval with every member, and says it stopped on Ctrl-C', async () => {
    const out: string[] = [];
    const ctrlC = new AbortController();
    const started = Date.now();
    const cpu = watchRunQueueWait(lab.members);
    const code = await runCli({
      argv: ['watch', 'local', '--config', configPath, '--interval', '5'],
      env: {},
      stdout: (text) => {
        out.push(text);
        // The second frame: press Ctrl-C.
        if (out.filter((t) => /^local at /.test(t)).length === 2) ctrlC.abort(new Error('SIGINT'));
      },
      stderr: (text) => out.push(text),
      shutdownSignal: () => ctrlC.signal,
    });
    const frames = out.filter((t) => /^local at /.test(t));
    expect(frames).toHaveLength(2);
    // One interval between the two frames, no faster.
    expect(Date.now() - started).toBeGreaterThan(4500);
    // Healthy: the lab's data is on tmpfs, and etcd-doctor's own load is an info observer-load
    // finding. The one exception is measured on the member itself: cpu-starvation on members whose
    // own threads waited for a CPU in this window (run-queue wait, support/process/host-load.ts).
    const measured = cpu.stop();
    const provenStarved = (frame: string) => {
      const named = [...frame.matchAll(/cpu-starvation on (etcd-\d+)/g)].map((m) => m[1] ?? '');
      return named.length > 0 && named.every((m) => measured.starved.has(m));
    };
    const starved = frames.some((f) => /: DEGRADED/.test(f) && provenStarved(f));
    for (const frame of frames) {
      if (starved) {
        expect(frame).toMatch(/: (HEALTHY|DEGRADED) \(check \d, every 5 s; Ctrl-C to stop\)/);
        expect(frame).not.toMatch(/(warning|critical): (?!cpu-starvation on)/);
        if (/: DEGRADED/.test(frame)) expect(provenStarved(frame)).toBe(true);
      } else
        expect({ frame, ...measured, starved: [...measured.starved] }).toMatchObject({
          frame: expect.stringMatching(/: HEALTHY \(check \d, every 5 s; Ctrl-C to stop\)/),
        });
      for (const m of lab.members) expect(frame).toContain(m.name);
    }
    expect(out.at(-1)).toBe('Stopped watching local after 2 checks.');
    // The last check's status, as `diagnose` exits: 0 healthy, 1 degraded.
    expect(code).toBe(starved && /: DEGRADED/.test(frames.at(-1) ?? '') ? 1 : 0);
  });

  it('refuses an interval under 5 s, saying what to pass', async () => {
    const err: string[] = [];
    const code = await runCli({
      argv: ['watch', 'local', '--config', configPath, '--interval', '1'],
      env: {},
      stdout: () => undefined,
      stderr: (text) => err.push(text),
    });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/--interval must be a whole number of seconds, at least 5/);
  });
});
