import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { stringify } from 'yaml';
import { parseConfigText } from '../src/config/load-config.js';
import type { ConfigFile } from '../src/config/schema.js';
import { createDoctor } from '../src/doctor.js';
import { type EtcdLab, findEtcdBinary, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { renderText } from '../src/report/render-text.js';
import { runShell } from '../src/roles/shell.js';
import { purgePrefix } from '../src/state/purge-prefix.js';

/**
 * The demo: a real local 3-member etcd, optionally with one fault injected for real, the
 * diagnosis printed, then the shell chat adapter on that cluster. Ctrl-C (or EOF on a pipe)
 * stops everything it started.
 */
const FAULTS = ['none', 'slow-disk', 'member-down', 'hung-member', 'nospace'] as const;
type Fault = (typeof FAULTS)[number];
/**
 * The person at the demo's shell, listed as the demo cluster's only responder: the buttons that
 * change something (Recover from NOSPACE, Defragment) work for them, with the same confirmation,
 * re-check and audit as in Slack. Outside the demo nobody is a responder until the config says so.
 */
const DEMO_USER = 'U0SHELL';

const program = new Command('npm run demo --')
  .addOption(
    new Option(
      '--fault <fault>',
      'inject a real fault before diagnosing (on etcd-2; nospace fills the cluster)',
    )
      .choices(FAULTS)
      .default('none'),
  )
  .option('--no-shell', 'print the diagnosis and exit instead of opening the shell adapter')
  .parse(process.argv);
const opts = program.opts<{ fault: Fault; shell: boolean }>();

/** Where a fault is: on one member, or (NOSPACE: the quota is the cluster's) on the whole cluster. */
function faultTarget(fault: Fault): string {
  return fault === 'nospace' ? 'on the whole cluster (a 16 MB quota, filled)' : 'on etcd-2';
}

async function injectFault(lab: EtcdLab, fault: Fault): Promise<{ stop(): Promise<void> }> {
  const none = { stop: async () => {} };
  switch (fault) {
    case 'slow-disk': {
      const slow = await lab.slowDisk('etcd-2', 200_000);
      // fsync only happens on writes: keep a gentle write load going so the disk shows.
      let running = true;
      const load = (async () => {
        for (let i = 0; running && i < 600; i++)
          await lab.writeLoad({ ratePerSecond: 40, durationMs: 1000, valueBytes: 256 });
      })();
      return {
        stop: async () => {
          running = false;
          await load;
          await slow.stop();
        },
      };
    }
    case 'member-down':
      await lab.kill('etcd-2');
      return none;
    case 'hung-member':
      lab.stop('etcd-2');
      return { stop: async () => lab.cont('etcd-2') };
    case 'nospace': {
      await lab.fill({ valueBytes: 100 * 1024, maxPuts: 400, keyPrefix: 'demo/junk/' });
      // What fills a quota in practice is history (old revisions), not live data: delete the keys
      // (deletes work under NOSPACE) so that Recover from NOSPACE can give the space back, as in
      // test/integration/remediation/nospace.etcd.test.ts. Live data over the quota cannot be fixed.
      const deleted = await lab.etcdctl(['del', '--prefix', 'demo/junk/']);
      if (deleted.code !== 0) throw new Error(`etcdctl del failed: ${deleted.stderr}`);
      return none;
    }
    default:
      return none;
  }
}

async function main(): Promise<void> {
  if (!(await findEtcdBinary())) {
    console.error('etcd is not installed. Install it with: sudo apt-get install -y etcd-server etcd-client');
    process.exitCode = 2;
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-demo-'));
  console.error('Starting a local 3-member etcd on 127.0.0.1 ...');
  const lab = await startEtcdLab(opts.fault === 'nospace' ? { quotaBackendBytes: 16 * 1024 * 1024 } : {});
  let fault = { stop: async () => {} };
  let cleaning: Promise<void> | undefined;
  // Once, whichever way the demo ends (a signal, then the finally below).
  const cleanup = () =>
    (cleaning ??= (async () => {
      await fault.stop().catch(() => {});
      await lab.destroy();
      await rm(dir, { recursive: true, force: true });
      // Nothing of the demo stays in Redis (BullMQ's keys have no TTL); a Redis gone by now has nothing to keep.
      if (opts.shell) await purgePrefix(DEMO_REDIS_URL, DEMO_PREFIX).catch(() => 0);
    })());
  // Ctrl-C before the shell opens (the shell turns its own Ctrl-C into leaving, see openShell).
  process.once('SIGINT', () => {
    console.error("\nCtrl-C: stopping the demo's 3-member etcd lab (its data is deleted).");
    void cleanup().then(() => process.exit(130));
  });
  // A closed terminal (SIGHUP) or a kill (SIGTERM) cleans up too: the lab, the config and charts folder.
  for (const [signal, code] of [
    ['SIGHUP', 129],
    ['SIGTERM', 143],
  ] as const)
    process.once(signal, () => void cleanup().then(() => process.exit(code)));
  try {
    const configPath = join(dir, 'etcd-doctor.yaml');
    const configText = stringify({
      clusters: [
        {
          name: 'local',
          etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
          // A lab of a few MB: a second between members' defragmentation is plenty (production: 36 s).
          remediation: {
            responders: [DEMO_USER],
            snapshotDir: join(dir, 'snapshots'),
            defragPauseSeconds: 1,
          },
        },
      ],
    });
    await writeFile(configPath, configText);
    console.error(`Cluster "local": ${lab.endpoints.join(', ')} (config: ${configPath})`);
    if (opts.fault !== 'none')
      console.error(`Injecting fault "${opts.fault}" ${faultTarget(opts.fault)} ...`);
    fault = await injectFault(lab, opts.fault);
    const parsed = parseConfigText(configText, configPath);
    if (!parsed.ok) throw new Error(parsed.error);
    const doctor = createDoctor({ config: parsed.value, readFileBuffer: async () => Buffer.alloc(0) });
    try {
      console.log(renderText(await doctor.run('local', 'diagnose')));
    } finally {
      await doctor.close();
    }
    if (opts.shell) await openShell(parsed.value, join(dir, 'files'));
  } finally {
    await cleanup();
  }
}

/**
 * The shell chat adapter on the demo cluster: the whole product (commands, queue, worker,
 * diagnosis, buttons) with no Slack. Piped stdin runs its commands and returns at EOF.
 */
async function openShell(config: ConfigFile, fileDir: string): Promise<void> {
  const interactive = Boolean(process.stdin.isTTY);
  if (interactive) console.error('');
  await runShell({
    config,
    input: process.stdin,
    output: process.stdout,
    interactive,
    user: DEMO_USER,
    greeting:
      'etcd-doctor shell on cluster "local", with you as its responder: type diagnose, then a button number to press it; help lists the commands. Ctrl-C, Ctrl-D or exit leaves.',
    farewell: "Leaving: stopping the shell and the demo's 3-member etcd lab (its data is deleted).",
    redisUrl: DEMO_REDIS_URL,
    queuePrefix: DEMO_PREFIX,
    // Charts go with the demo's other files, deleted when it ends.
    fileDir,
  });
}

const DEMO_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The demo's own keys in Redis (queue, job state, history): deleted when it ends. */
const DEMO_PREFIX = `etcd-doctor-demo-${process.pid}`;

await main();
