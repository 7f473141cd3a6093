import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { findEtcdctlBinary } from '../support/lab/binaries.js';
import { runCommand } from '../support/lab/run-command.js';
import { REDIS_URL } from '../support/redis/redis-prefix.js';

/**
 * `npm run demo -- --fault nospace` as a newcomer runs it: in a pseudo-terminal (util-linux
 * `script` gives the demo a real tty, so readline runs in terminal mode, with its prompt and raw
 * Ctrl-C), typing the commands and pressing the buttons by number, and reading the screen.
 * node-pty would need a compiler at install; `script` is in every Debian base image.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Demo start: setup check, a 3-member lab, filling it to a 16 MB quota, the first diagnosis. */
const START_MS = 120_000;
/** A diagnosis (3 s /metrics window) or the NOSPACE recovery (about 2 s) on a busy shared host. */
const ANSWER_MS = 60_000;
const EXIT_MS = 60_000;

interface Screen {
  child: ChildProcessWithoutNullStreams;
  /** Everything shown so far, with the terminal's control sequences and carriage returns removed. */
  text(): string;
  /** Resolves with the match once the screen after `from` matches; rejects with the screen at the deadline. */
  until(pattern: RegExp, from: number, timeoutMs: number): Promise<RegExpExecArray>;
  type(keys: string): void;
  exited: Promise<number | null>;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal control sequences, on purpose
const CONTROL = /\x1b\[[0-9;?]*[A-Za-z]|\r/g;

function startDemo(): Screen {
  const child = spawn('script', ['-qfec', 'npm run demo -- --fault nospace', '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, TERM: 'dumb', NO_COLOR: '1' },
    stdio: 'pipe',
    detached: true,
  });
  let raw = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    raw += chunk.toString('utf8');
    for (const check of [...waiters]) check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const text = () => raw.replace(CONTROL, '');
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    text,
    exited,
    type: (keys) => child.stdin.write(keys),
    until(pattern, from, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = pattern.exec(text().slice(from));
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} on the screen within ${timeoutMs} ms:\n${text().slice(from)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

async function etcdctlPut(endpoint: string): Promise<{ code: number; stderr: string }> {
  const etcdctl = await findEtcdctlBinary();
  if (!etcdctl) throw new Error('etcdctl is not installed');
  return runCommand(
    etcdctl,
    [`--endpoints=${endpoint}`, '--command-timeout=5s', 'put', 'newcomer', 'hello'],
    {
      timeoutMs: 10_000,
      env: { ETCDCTL_API: '3' },
    },
  );
}

function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** The `etcd-doctor-demo-<pid>` prefixes that have keys in Redis now. */
async function demoKeyPrefixes(): Promise<string[]> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const keys: string[] = [];
    let cursor = '0';
    for (let round = 0; round < 1000; round += 1) {
      const [next, found] = await redis.scan(cursor, 'MATCH', 'etcd-doctor-demo-*', 'COUNT', 1000);
      keys.push(...found);
      cursor = next;
      if (cursor === '0') break;
    }
    return [...new Set(keys.map((k) => k.split(':')[0] ?? k))];
  } finally {
    redis.disconnect();
  }
}

/**
 * The README's "See a fix work" block, as a newcomer follows it: the Buttons line it shows and the
 * numbers it types (issue 42: it showed three buttons where the demo has four, so `4` re-ran the
 * diagnosis instead of Run it).
 */
function readmeWalkthrough(): { buttons: string; recover: string; runIt: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```text\n\$ npm run demo -- --fault nospace\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const typed = [...block.matchAll(/^etcd> (\d+) /gm)].map((m) => m[1] ?? '');
  return {
    buttons: /^Buttons: (.*)$/m.exec(block)?.[1]?.trim() ?? '',
    recover: typed[0] ?? '',
    runIt: typed[1] ?? '',
  };
}

let demo: Screen | undefined;

afterAll(async () => {
  if (!demo || demo.child.exitCode !== null) return;
  // Leave as a person would; if the demo does not go in time, end its process group.
  demo.type('\x03');
  const gone = await Promise.race([
    demo.exited.then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), EXIT_MS).unref()),
  ]);
  if (!gone && demo.child.pid) killGroupIfAny(demo.child.pid);
}, EXIT_MS + 5000);

describe('npm run demo -- --fault nospace, in a terminal', () => {
  it(
    'diagnoses NOSPACE; pressing Recover from NOSPACE and Run it by number brings writes back',
    async () => {
      const demoKeysBefore = await demoKeyPrefixes();
      demo = startDemo();
      const screen = demo;
      const started = await screen.until(
        /Cluster "local": (\S+),.*\(config: (\S+)\/etcd-doctor\.yaml\)/,
        0,
        START_MS,
      );
      const endpoint = started[1] ?? '';
      const config = started[2] ?? '';
      await screen.until(/with you as its responder.*\n.*etcd> $/, 0, START_MS);
      // NOSPACE is the cluster's quota, not one member's fault.
      expect(screen.text()).toContain('Injecting fault "nospace" on the whole cluster');
      // One greeting line; the first diagnosis, printed before the shell, shows no button-like brackets.
      expect(screen.text().match(/Ctrl-C, Ctrl-D or exit leaves/g)).toHaveLength(1);
      expect(screen.text()).not.toMatch(/\[(recover-nospace|rerun|disk-benchmark)\]/);
      // The fault is real: etcd refuses writes.
      expect((await etcdctlPut(endpoint)).stderr).toContain('database space exceeded');

      let mark = screen.text().length;
      screen.type('diagnose\r');
      const answer = await screen.until(/\nButtons: (.*)\n/, mark, ANSWER_MS);
      const buttonsLine = answer[1] ?? '';
      const recover = /\[(\d+)\] Recover from NOSPACE/.exec(buttonsLine)?.[1];
      expect(recover).toBeDefined();
      // The README shows these very buttons, and presses the numbers this screen gives them.
      const readme = readmeWalkthrough();
      expect(readme.buttons).toBe(buttonsLine.trim());
      expect(readme.recover).toBe(recover);
      expect(buttonsLine.match(/Re-run diagnosis/g)).toHaveLength(1);
      const report = screen.text().slice(mark);
      expect(report).toContain('Root cause: db-quota [critical]');
      // The step names its button by number, not by an action id in brackets.
      expect(report).toMatch(new RegExp(`1\\. Recover: snapshot.* -> \\[${recover}\\] Recover from NOSPACE`));
      expect(report).not.toMatch(/\[(recover-nospace|rerun|disk-benchmark)\]/);
      // The prompt comes back once the answer is printed, not before it (issue 42): no prompt
      // between the command and its answer; the root's verdict may land just after, above it.
      await screen.until(/\[CRITICAL\] local: db-quota.*\n(.*\n)*etcd> $/, mark, ANSWER_MS);
      const shown = screen.text().slice(mark);
      expect(shown.indexOf('etcd> ')).toBeGreaterThan(shown.indexOf('\nButtons: '));

      mark = screen.text().length;
      screen.type(`${recover}\r`);
      const confirm = await screen.until(/Buttons: \[(\d+)\] Run it/, mark, ANSWER_MS);
      expect(readme.runIt).toBe(confirm[1]);
      expect(screen.text().slice(mark)).toContain('Recover from NOSPACE on local:');
      expect(screen.text().slice(mark)).not.toContain('Only responders');

      mark = screen.text().length;
      screen.type(`${confirm[1]}\r`);
      await screen.until(
        /@U0SHELL ran Recover from NOSPACE on local: finished in [\d.]+ s: recovered local from NOSPACE: writes work again/,
        mark,
        ANSWER_MS,
      );
      const run = screen.text().slice(mark);
      expect(run).toContain('disarmed NOSPACE');
      // Each step is one new line under the message, and the outcome does not print them again
      // (12 copies before, then 2): the snapshot line shows once, as its step.
      expect(run.match(/snapshot of \S+ saved on/g)).toHaveLength(1);
      expect(run).toContain('writes work again (its steps are shown above)');
      // The demo's worker runs in no pod: no kubectl cp that means nothing here.
      expect(run).not.toContain('kubectl cp');
      // Writes are back, for etcdctl too.
      expect(await etcdctlPut(endpoint)).toMatchObject({ code: 0 });

      // Its chart went into the demo's own folder, which goes when the demo does.
      const chart = /: (\/\S+\.png)\n/.exec(screen.text())?.[1];
      expect(chart?.startsWith(config)).toBe(true);

      // Ctrl-C: one line saying what stops, then everything the demo started is gone.
      mark = screen.text().length;
      screen.type('\x03');
      await screen.until(/Leaving: stopping the shell and the demo's 3-member etcd lab/, mark, EXIT_MS);
      expect(await screen.exited).toBe(0);
      expect(await refusesConnections(endpoint)).toBe(true);
      expect(existsSync(config)).toBe(false);
      if (chart) expect(existsSync(chart)).toBe(false);
      // Nor does anything of the demo stay in Redis (BullMQ's keys have no TTL).
      expect((await demoKeyPrefixes()).filter((p) => !demoKeysBefore.includes(p))).toEqual([]);
    },
    START_MS + 4 * ANSWER_MS + EXIT_MS,
  );

  it(
    'closing the terminal (SIGHUP) stops the lab and removes the config folder',
    async () => {
      const closed = startDemo();
      try {
        const started = await closed.until(
          /Cluster "local": (\S+),.*\(config: (\S+)\/etcd-doctor\.yaml\)/,
          0,
          START_MS,
        );
        const endpoint = started[1] ?? '';
        const config = started[2] ?? '';
        await closed.until(/etcd> $/, 0, START_MS);
        expect(existsSync(config)).toBe(true);
        // A terminal window closed: its emulator (here `script`) is gone, the pty's master closes,
        // and the kernel sends the demo's session SIGHUP.
        closed.child.kill('SIGKILL');
        await closed.exited;
        // The demo cleans up after its own process exits: wait (bounded) for its folder to go.
        for (let i = 0; i < 100 && existsSync(config); i++) await new Promise((r) => setTimeout(r, 100));
        expect(existsSync(config)).toBe(false);
        expect(await refusesConnections(endpoint)).toBe(true);
      } finally {
        // The demo's process group may be gone already (it was SIGKILLed and cleaned up): ESRCH is fine.
        if (closed.child.pid) killGroupIfAny(closed.child.pid);
      }
    },
    START_MS + EXIT_MS,
  );
});

function killGroupIfAny(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
