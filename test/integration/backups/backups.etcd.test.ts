import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Etcd3 } from 'etcd3';
import type { BackupsCommandJson } from '../../../src/cli/run-backups-command.js';
import { configFileSchema } from '../../../src/config/schema.js';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { digestLine } from '../../../src/digest/digest-view.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { backupsView } from '../../../src/report/backups-view.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/**
 * Backups on a real etcd: `etcdctl snapshot save` writes the snapshots; one is made old with
 * utimes, one gets a flipped byte, one is cut short. The findings, the `/etcd backups` listing,
 * `etcd-doctor backups` and the digest line say which is good, how old, and how far behind.
 */

const HOUR_MS = 3600_000;

let lab: EtcdLab;
let root: string;
let configPath: string;
let doctor: Doctor;
/** The store's revision when each snapshot was saved, and the cluster's at the end. */
const revisions = { old: 0, fresh: 0, current: 0 };

async function revisionNow(): Promise<number> {
  const out = await lab.etcdctl(['endpoint', 'status', '-w', 'json']);
  return (JSON.parse(out.stdout) as Array<{ Status: { header: { revision: number } } }>)[0]?.Status.header
    .revision as number;
}

async function put(client: Etcd3, count: number, tag: string): Promise<void> {
  for (let i = 0; i < count; i++)
    await client.put(`/registry/configmaps/default/${tag}-${i}`).value('v'.repeat(200));
}

async function save(path: string): Promise<void> {
  const saved = await lab.etcdctl(['snapshot', 'save', path, `--endpoints=${lab.endpoints[0]}`], {
    timeoutMs: 30_000,
  });
  expect(saved.code).toBe(0);
}

/** Copies `from` into `dir` as `name`, modified `ageMs` ago. */
async function place(from: string, dir: string, name: string, ageMs: number): Promise<string> {
  const to = join(dir, name);
  await copyFile(from, to);
  const at = new Date(Date.now() - ageMs);
  await utimes(to, at, at);
  return to;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'etcd-doctor-backups-'));
  lab = await startEtcdLab({ size: 1 });
  const client = new Etcd3({ hosts: lab.endpoints });
  const made = join(root, 'made');
  await mkdir(made);
  try {
    await put(client, 40, 'a');
    await save(join(made, 'old.db'));
    revisions.old = await revisionNow();
    await put(client, 20, 'b');
    await save(join(made, 'fresh.db'));
    revisions.fresh = await revisionNow();
    await put(client, 10, 'c');
    revisions.current = await revisionNow();
  } finally {
    client.close();
  }
  // One flipped byte in a value: the SHA-256 trailer no longer matches.
  const bytes = await readFile(join(made, 'fresh.db'));
  const at = bytes.indexOf('vvvvvvvvvv');
  expect(at).toBeGreaterThan(0);
  bytes[at] = 'x'.charCodeAt(0);
  await writeFile(join(made, 'flipped.db'), bytes);

  const dirs = { fresh: 'fresh', stale: 'stale', empty: 'empty', broken: 'broken' };
  for (const d of Object.values(dirs)) await mkdir(join(root, d));
  // Ages in hours: shown to a tenth of an hour (6 min), they read the same while the suite runs.
  // fresh: a good snapshot two hours old, a damaged one and an old good one behind it, and a stray file.
  await place(join(made, 'fresh.db'), join(root, 'fresh'), 'etcd-fresh.db', 2 * HOUR_MS);
  await place(join(made, 'flipped.db'), join(root, 'fresh'), 'etcd-flipped.db', 30 * HOUR_MS);
  await place(join(made, 'old.db'), join(root, 'fresh'), 'etcd-old.db', 72 * HOUR_MS);
  await writeFile(join(root, 'fresh', 'README.txt'), 'not a snapshot');
  // stale: the newest file is damaged, the only good one is three days old.
  await place(join(made, 'flipped.db'), join(root, 'stale'), 'etcd-flipped.db', 5 * HOUR_MS);
  await place(join(made, 'old.db'), join(root, 'stale'), 'etcd-old.db', 72 * HOUR_MS);
  // broken: a copy cut short and a damaged one, nothing good.
  const cut = await place(join(made, 'fresh.db'), join(root, 'broken'), 'etcd-cut.db', 2 * HOUR_MS);
  await truncate(cut, Math.floor((await stat(cut)).size / 2));
  const cutAt = new Date(Date.now() - 2 * HOUR_MS);
  await utimes(cut, cutAt, cutAt);
  await place(join(made, 'flipped.db'), join(root, 'broken'), 'etcd-flipped.db', 3 * HOUR_MS);

  const cluster = (name: string) => ({
    name,
    etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
    backups: { dir: join(root, name), maxAgeHours: 24 },
  });
  const raw = {
    // `missing`: a directory that is not there (a volume not mounted in the worker).
    clusters: [...Object.keys(dirs), 'missing'].map(cluster),
    probes: { timeoutMs: 2000, metricsWindowMs: 300 },
  };
  configPath = join(root, 'etcd-doctor.yaml');
  await writeFile(configPath, JSON.stringify(raw));
  doctor = createDoctor({ config: configFileSchema.parse(raw), readFileBuffer: (p) => readFile(p) });
}, 120_000);

afterAll(async () => {
  await doctor?.close();
  await lab?.destroy();
  await rm(root, { recursive: true, force: true });
});

const staleOf = (r: DiagnosisReport) => r.findings.find((f) => f.cause === 'backup-stale');

describe('backup-stale on a real lab', () => {
  it('a fresh good snapshot: no finding; the newest good one with its revision and how far behind', async () => {
    const report = await doctor.run('fresh', 'diagnose');
    expect(staleOf(report)).toBeUndefined();
    expect(report.backups?.newestGood).toMatchObject({
      file: 'etcd-fresh.db',
      state: 'good',
      hashOk: true,
      revision: revisions.fresh,
      behindRevisions: revisions.current - revisions.fresh,
    });
    expect(revisions.current - revisions.fresh).toBe(10);
    // A diagnosis reads newest first until a good one: the older files are listed, not read.
    expect(report.backups?.snapshots.map((s) => [s.file, s.state])).toEqual([
      ['etcd-fresh.db', 'good'],
      ['etcd-flipped.db', 'unchecked'],
      ['etcd-old.db', 'unchecked'],
    ]);
    expect(report.backups?.matched).toBe(3);
    expect(report.probes.find((p) => p.name === 'backups')).toMatchObject({ ok: true, error: null });
  });

  it('only an old good snapshot and a newer damaged one: a warning naming both', async () => {
    const report = await doctor.run('stale', 'diagnose');
    const finding = staleOf(report);
    expect(finding).toMatchObject({ severity: 'warning', members: [] });
    expect(finding?.summary).toBe(
      'The newest good snapshot, etcd-old.db, is 3.0 days old (limit 24 h); the newer etcd-flipped.db (5.0 h old) is damaged: its SHA-256 trailer does not match its bytes (a byte changed after etcdctl snapshot save wrote it)',
    );
    expect(finding?.evidence[0]).toMatch(
      /^etcd-flipped\.db: 5.0 h old, [\d.]+ KB, DAMAGED: its SHA-256 trailer/,
    );
    expect(finding?.evidence[1]).toMatch(
      new RegExp(
        `^etcd-old\\.db: 3\\.0 days old, [\\d.]+ KB, revision ${revisions.old} \\(${revisions.current - revisions.old} behind the cluster's ${revisions.current}\\), SHA-256 ok$`,
      ),
    );
    expect(finding?.steps.map((s) => s.text).join('\n')).toMatch(/Do not restore from etcd-flipped\.db/);
    expect(report.status).toBe('degraded');
  });

  it('an empty directory: a warning that there is no snapshot at all', async () => {
    const finding = staleOf(await doctor.run('empty', 'diagnose'));
    expect(finding?.severity).toBe('warning');
    expect(finding?.summary).toBe(
      `No snapshot in ${join(root, 'empty')} (*.db): the cluster has no backup there`,
    );
  });

  it('a truncated and a damaged snapshot, nothing good: a warning saying what is wrong with the newest', async () => {
    const report = await doctor.run('broken', 'diagnose');
    const finding = staleOf(report);
    expect(finding?.summary).toMatch(
      /^No good snapshot in \S+ \(\*\.db\): the newest, etcd-cut\.db \(2\.0 h old\), is damaged: truncated: its meta page says \d+ pages of 4096 bytes/,
    );
    expect(report.backups?.snapshots.map((s) => [s.file, s.state, s.hashOk])).toEqual([
      ['etcd-cut.db', 'damaged', null],
      ['etcd-flipped.db', 'damaged', false],
    ]);
  });
});

describe('the listing: /etcd backups and etcd-doctor backups', () => {
  it('/etcd backups fresh: every file read, newest first, with age, size, revision, behind by, hash', async () => {
    const report = await doctor.run('fresh', 'health', { backups: true });
    const view = backupsView(report);
    expect(view.tone).toBe('info');
    const text = view.lines.join('\n');
    expect(view.lines[0]).toBe(
      `Backups of *fresh*: \`${join(root, 'fresh')}\` (\`*.db\`), limit 24 h; the cluster is at revision ${revisions.current}.`,
    );
    expect(view.lines[1]).toMatch(
      new RegExp(
        `^• \`etcd-fresh\\.db\` 2.0 h old · [\\d.]+ KB · revision ${revisions.fresh} · 10 behind · SHA-256 ok$`,
      ),
    );
    expect(view.lines[2]).toMatch(
      /^• `etcd-flipped\.db` 30\.0 h old · [\d.]+ KB · DAMAGED: its SHA-256 trailer does not match its bytes/,
    );
    expect(view.lines[3]).toMatch(
      new RegExp(
        `^• \`etcd-old\\.db\` 3\\.0 days old · [\\d.]+ KB · revision ${revisions.old} · 30 behind · SHA-256 ok$`,
      ),
    );
    expect(text).toContain('✅ Newest good: `etcd-fresh.db`, 2.0 h old (within 24 h).');
    expect(text).not.toContain('README');
  });

  it('etcd-doctor backups stale --json: the documented shape, exit 1 with the finding', async () => {
    const r = await cliInProcess(['backups', 'stale', '--config', configPath, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as BackupsCommandJson;
    expect(json).toMatchObject({
      cluster: 'stale',
      dir: join(root, 'stale'),
      pattern: '*.db',
      maxAgeHours: 24,
      clusterRevision: revisions.current,
      matched: 2,
      error: null,
      jobs: null,
      newestGood: { file: 'etcd-old.db', revision: revisions.old, hashOk: true },
      finding: { cause: 'backup-stale', severity: 'warning' },
    });
    expect(json.snapshots.map((s) => [s.file, s.state, s.hashOk, s.behindRevisions])).toEqual([
      ['etcd-flipped.db', 'damaged', false, null],
      ['etcd-old.db', 'good', true, revisions.current - revisions.old],
    ]);
    expect(json.snapshots[1]?.ageHours).toBeCloseTo(72, 0);
  });

  it('etcd-doctor backups: text exit 0 when fresh; a cluster without backups is a usage error', async () => {
    const ok = await cliInProcess(['backups', 'fresh', '--config', configPath]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('✅ Newest good: `etcd-fresh.db`');
    const unknown = await cliInProcess(['backups', 'nope', '--config', configPath]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown cluster "nope"/);
  });
});

const BIN = fileURLToPath(new URL('../../../bin/etcd-doctor.js', import.meta.url));

/** `etcd-doctor serve` with piped commands: the shell chat, the queue on real Redis, a worker. */
function serve(
  stdin: string,
  prefix: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', REDIS_URL };
  const child = spawn(process.execPath, [BIN, 'serve', '--config', configPath, '--queue-prefix', prefix], {
    env,
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  child.stdin.end(stdin);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('/etcd backups through the queue (etcd-doctor serve, shell chat)', () => {
  const prefix = testPrefix('backups-serve');
  afterAll(() => purgePrefix(prefix));

  it('queues the listing to a worker and prints it; the bare command gets its usage', async () => {
    const run = await serve('/etcd backups stale\n/etcd backups\n', prefix);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Reading the backups of stale; the answer follows in this channel.');
    expect(run.stdout).toMatch(
      /• etcd-flipped\.db 5.0 h old · [\d.]+ KB · DAMAGED: its SHA-256 trailer does not match/,
    );
    expect(run.stdout).toMatch(
      new RegExp(
        `• etcd-old\\.db 3\\.0 days old · [\\d.]+ KB · revision ${revisions.old} · ${revisions.current - revisions.old} behind · SHA-256 ok`,
      ),
    );
    expect(run.stdout).toContain(
      'backup-stale: The newest good snapshot, etcd-old.db, is 3.0 days old (limit 24 h)',
    );
    // Four clusters: the bare command is a usage reply, never silence.
    expect(run.stdout).toContain(
      '> /etcd backups\nSorry: an argument is missing.\nUsage: /etcd backups <cluster>',
    );
  }, 90_000);
});

describe('a backup directory that is not there', () => {
  it('etcd-doctor backups: says so, naming the field; exit 3 (could not check); no finding made up', async () => {
    const r = await cliInProcess(['backups', 'missing', '--config', configPath]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(
      `The directory could not be read: cluster missing: the backup directory ${join(root, 'missing')} (backups.dir) does not exist here (is the volume mounted in the worker?)`,
    );
    expect(r.stdout).toContain('No verdict: neither the directory nor the backup jobs could be read.');
    const report = await doctor.run('missing', 'diagnose');
    expect(staleOf(report)).toBeUndefined();
    expect(digestLine({ cluster: 'missing', ok: true, report, samples: [] }, Date.now())).toContain(
      '· backups not read',
    );
  });
});

describe('the digest line', () => {
  it('names the newest good backup, its age and how far behind; a damaged newest is flagged', async () => {
    const now = Date.now();
    const fresh = await doctor.run('fresh', 'diagnose');
    expect(digestLine({ cluster: 'fresh', ok: true, report: fresh, samples: [] }, now)).toContain(
      '· backup 2.0 h old (`etcd-fresh.db`, 10 behind)',
    );
    const stale = await doctor.run('stale', 'diagnose');
    const line = digestLine({ cluster: 'stale', ok: true, report: stale, samples: [] }, now);
    expect(line).toMatch(/^🟡 \*stale\* DEGRADED: `backup-stale`/);
    expect(line).toContain(
      `· backup 3.0 days old (over 24 h) (\`etcd-old.db\`, ${revisions.current - revisions.old} behind); newest \`etcd-flipped.db\` DAMAGED`,
    );
    const empty = await doctor.run('empty', 'diagnose');
    expect(digestLine({ cluster: 'empty', ok: true, report: empty, samples: [] }, now)).toContain(
      '· no backup',
    );
  });
});

describe('backup jobs in Kubernetes (no backups.dir)', () => {
  let fake: FakeKubeApi;
  let forbidden: FakeKubeApi;
  let kubeDoctor: Doctor;

  beforeAll(async () => {
    fake = await startFakeKubeApi({ fixture: 'etcd-backups' });
    forbidden = await startFakeKubeApi({ fixture: 'etcd-backups', forbid: [{ resource: 'cronjobs' }] });
    const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, context: 'prod' });
    const denied = await writeFakeKubeconfig(forbidden.url, { token: forbidden.token, context: 'prod' });
    const cluster = (name: string, file: string, maxAgeHours: number) => ({
      name,
      etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
      kubernetes: { kubeconfig: file, context: 'prod' },
      backups: { maxAgeHours },
    });
    const config = configFileSchema.parse({
      clusters: [
        cluster('daily', kubeconfig, 24),
        cluster('weekly', kubeconfig, 7 * 24),
        cluster('denied', denied, 24),
      ],
      probes: { timeoutMs: 2000, metricsWindowMs: 300 },
    });
    // The fixture was recorded at a fixed time: job ages are judged against it.
    const started = Date.now();
    const now = () => fake.fixture.recordedAtMs + (Date.now() - started);
    kubeDoctor = createDoctor({ config, readFileBuffer: (p) => readFile(p), now });
  });
  afterAll(async () => {
    await kubeDoctor?.close();
    await fake?.close();
    await forbidden?.close();
  });

  it('the last successful backup job is 27 h old: backup-stale, with the failed runs and the RBAC it read', async () => {
    const report = await kubeDoctor.run('daily', 'diagnose');
    const finding = staleOf(report);
    expect(finding).toMatchObject({ severity: 'warning' });
    expect(finding?.summary).toBe('The newest successful etcd backup job finished 27.5 h ago (limit 24 h)');
    expect(finding?.evidence).toEqual([
      'CronJob kube-system/etcd-backup (0 */6 * * *): last success 27.5 h ago; last run etcd-backup-28594440 failed: BackoffLimitExceeded: Job has reached the specified backoff limit',
      'Job kube-system/etcd-snapshot-manual: last success 47.5 h ago',
    ]);
    // Velero's backups and the etcd-defrag CronJob are not etcd backups.
    expect(report.backups?.jobs?.map((j) => j.name)).toEqual(['etcd-backup', 'etcd-snapshot-manual']);
    expect(report.backups?.dir).toBeNull();
    expect(fake.requests('cronjobs').map((r) => r.path)).toContain('/apis/batch/v1/cronjobs');
    expect(fake.requests('jobs').map((r) => r.path)).toContain('/apis/batch/v1/jobs');
  });

  it('within a weekly limit: no finding; the listing shows the jobs', async () => {
    const report = await kubeDoctor.run('weekly', 'health', { backups: true });
    expect(staleOf(report)).toBeUndefined();
    const text = backupsView(report).lines.join('\n');
    expect(text).toContain('Kubernetes backup jobs only (no backups.dir)');
    expect(text).toContain(
      '• CronJob `kube-system/etcd-backup` `0 */6 * * *` · last success 27.5 h ago · last run `etcd-backup-28594440` FAILED: BackoffLimitExceeded: Job has reached the specified backoff limit',
    );
    expect(text).toContain('✅ A backup job succeeded within the limit.');
  });

  it('a 403 on cronjobs: the probe names the permission, and no verdict is made without evidence', async () => {
    const report = await kubeDoctor.run('denied', 'diagnose');
    expect(staleOf(report)).toBeUndefined();
    expect(report.probes.find((p) => p.name === 'k8s-backup-jobs')?.error).toMatch(
      /is forbidden to list cronjobs\.batch \(needs RBAC: list cronjobs\.batch\)/,
    );
    expect(report.backups?.jobsError).toMatch(/forbidden to list cronjobs\.batch/);
  });
});
