import { mkdtemp, rm } from 'node:fs/promises';
import { machine, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../lab/run-command.js';

/**
 * test/support/clock/clockshift-src/clockshift.c, compiled at test time: `clockshift <seconds> -- prog args`
 * runs prog (in place, same PID) with CLOCK_REALTIME shifted, by ptrace + seccomp with the vDSO
 * hidden, which is what it takes to move a Go program's (etcd's) wall clock. See the C file.
 */
export type Clockshift = { ok: true; path: string; dispose(): Promise<void> } | { ok: false; reason: string };

const SOURCE = fileURLToPath(new URL('./clockshift-src/clockshift.c', import.meta.url));
const COMPILE_TIMEOUT_MS = 60_000;
const PROBE_TIMEOUT_MS = 10_000;
const PROBE_OFFSET_S = 8;

/**
 * Compiles clockshift with the machine's gcc and proves it works here: `date` (glibc, no Go) must
 * see its clock moved, and etcd (Go) must run under it. Never throws: when anything is missing
 * (not x86_64 Linux, no gcc, ptrace or seccomp denied) it says why, so a test can fall back.
 * ETCD_DOCTOR_NO_CLOCKSHIFT=1 forces that fallback, to exercise it on a machine that has gcc.
 */
export async function buildClockshift(etcdBinary: string): Promise<Clockshift> {
  if (process.env.ETCD_DOCTOR_NO_CLOCKSHIFT === '1') {
    return { ok: false, reason: 'ETCD_DOCTOR_NO_CLOCKSHIFT=1' };
  }
  if (process.platform !== 'linux' || machine() !== 'x86_64') {
    return { ok: false, reason: `clockshift is x86_64 Linux only; this is ${process.platform} ${machine()}` };
  }
  const dir = await mkdtemp(join(tmpdir(), 'clockshift-'));
  const dispose = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'clockshift');
  const why = await compileAndProbe(path, etcdBinary);
  if (why === undefined) return { ok: true, path, dispose };
  await dispose();
  return { ok: false, reason: why };
}

async function compileAndProbe(path: string, etcdBinary: string): Promise<string | undefined> {
  const gcc = await runCommand('gcc', ['-O2', '-Wall', '-o', path, SOURCE, '-lm'], {
    timeoutMs: COMPILE_TIMEOUT_MS,
  });
  if (gcc.code !== 0) return `gcc could not build clockshift (exit ${gcc.code}): ${firstLines(gcc.stderr)}`;

  // A Go-free check of the mechanism: glibc's date also reads the clock through the vDSO.
  const before = Date.now() / 1000;
  const date = await runCommand(path, [String(PROBE_OFFSET_S), '--', 'date', '+%s'], {
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  const after = Date.now() / 1000;
  if (date.code !== 0) return `clockshift could not run date (exit ${date.code}): ${firstLines(date.stderr)}`;
  const seen = Number(date.stdout.trim());
  // `date +%s` truncates to the second: allow one second below the window.
  if (!(seen >= Math.floor(before) + PROBE_OFFSET_S - 1 && seen <= after + PROBE_OFFSET_S)) {
    return `clockshift did not move date's clock by ${PROBE_OFFSET_S} s (it said ${seen}, real time ${after.toFixed(0)})`;
  }
  const version = await runCommand(path, [String(PROBE_OFFSET_S), '--', etcdBinary, '--version'], {
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  if (version.code !== 0) {
    return `etcd --version failed under clockshift (exit ${version.code}): ${firstLines(version.stderr)}`;
  }
  return undefined;
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 3).join(' | ') || '(no output)';
}
