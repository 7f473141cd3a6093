import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  FIO_WRAPPER_SCRIPT,
  LOW_SPACE_EXIT,
  SPACE_CHECK_SCRIPT,
} from '../../../src/remediation/actions/disk-benchmark.js';

/** The benchmark Job's two scripts, run here with /bin/sh on a temp dir instead of /bench. */
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-doctor-bench-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the space check (init container)', () => {
  const check = (dir: string, minFreeKb: number) =>
    spawnSync('/bin/sh', ['-c', SPACE_CHECK_SCRIPT], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BENCH_DIR: dir, MIN_FREE_KB: String(minFreeKb) },
      encoding: 'utf8',
      timeout: 10_000,
    });

  it('refuses when the filesystem has less free space than asked, and clears earlier leftovers', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'run-123'));
    writeFileSync(join(dir, 'run-123', 'etcd-doctor.0.0'), 'x'.repeat(1024));
    const low = check(dir, 1024 ** 4); // 1 PiB
    expect(low.status).toBe(LOW_SPACE_EXIT);
    expect(low.stdout).toMatch(
      /only \d+ MiB free on the etcd filesystem \(at least 1073741824 MiB needed\); not running fio/,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(check(dir, 1).status).toBe(0);
  });
});

describe('the fio wrapper', () => {
  it('removes its run directory when the Job is stopped mid-run (SIGTERM)', async () => {
    const dir = tempDir();
    const bin = tempDir();
    // A stand-in fio: writes its test file where it is told, then runs until stopped.
    writeFileSync(
      join(bin, 'fio'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell script, not a template
      '#!/bin/sh\nfor a in "$@"; do case "$a" in --directory=*) d="${a#--directory=}";; esac; done\necho data > "$d/etcd-doctor.0.0"\necho started\nexec sleep 30\n',
    );
    chmodSync(join(bin, 'fio'), 0o755);
    const child = spawn('/bin/sh', ['-c', FIO_WRAPPER_SCRIPT, 'fio-wrapper', '--size=22m'], {
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, BENCH_DIR: dir },
    });
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => /started/.test(String(d)) && resolve()),
    );
    expect(readdirSync(dir)).toHaveLength(1);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});
