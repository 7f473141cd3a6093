import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeError, EtcdDoctorError, MAX_MESSAGE_CHARS } from '../../src/errors.js';
import { withoutDir } from '../../src/offline/analyze-job.js';
import { OfflineInputError } from '../../src/errors.js';
import { redactUrlCredentials } from '../../src/secret.js';
import { cutLongRuns, cutText } from '../../src/untrusted-text.js';
import { cliInProcess } from '../support/process/cli-in-process.js';
import { MG_ROOT, mustGatherFiles, writeTarball } from '../support/offline/offline-fixtures.js';
import { writeLongBucketName } from '../support/offline/snapshot-bomb.js';

/**
 * Untrusted text (entry paths, bucket names, error messages that quote them) is cut before any
 * regex reads it and before any message carries it (issue 38, H2): a 200,000-character entry path
 * held the worker's main thread for 48 s in two regexes and was printed whole by the CLI. Each
 * adversarial input below runs on a 64 KiB or 200,000-character line; 1 s is a wide margin over
 * linear time (each takes milliseconds) and far under the seconds a quadratic pattern takes.
 */
const LINEAR_MS = 1000;
const KIB64 = 64 * 1024;

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

describe('cutting untrusted text', () => {
  it('cuts a long run in its middle and says how much it left out; short text is unchanged', () => {
    expect(cutText('short', 10)).toBe('short');
    const cut = cutText('a'.repeat(1000), 60);
    expect(cut).toHaveLength(60);
    expect(cut).toMatch(/^a+…\(940 characters\)…a+$/);
    const runs = cutLongRuns(`see ${'b'.repeat(200_000)} there`);
    expect(runs.length).toBeLessThan(220);
    expect(runs).toMatch(/^see b+…\(199,800 characters\)…b+ there$/);
    expect(cutLongRuns('a normal sentence, with words')).toBe('a normal sentence, with words');
  });

  it('an error built around a 200,000-character name says it in at most a few hundred characters', () => {
    const name = `${'x/'.repeat(100_000)}snapshot.db`;
    const { value: err, ms } = timed(
      () => new OfflineInputError(`${name} is a corrupt gzip file: copy it again`),
    );
    expect(ms).toBeLessThan(LINEAR_MS);
    expect(err.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(err.message).toMatch(/characters\)….*is a corrupt gzip file: copy it again$/);
    const plain = describeError(new Error(`${'y'.repeat(200_000)}\nsecond line`));
    expect(plain.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 20);
    expect(plain).not.toContain('second line');
    expect(new EtcdDoctorError('command_invalid', 'short stays whole').message).toBe('short stays whole');
  });
});

describe('the regexes that read untrusted error text run in linear time', () => {
  it('URL credentials: redacted as before, and fast on words of dots, letters and schemes', () => {
    expect(redactUrlCredentials('redis://:hunter2@127.0.0.1:6379/0')).toBe(
      'redis://[redacted]@127.0.0.1:6379/0',
    );
    expect(redactUrlCredentials('x redis://:p@ss@127.0.0.1 y')).toBe('x redis://[redacted]@127.0.0.1 y');
    for (const hostile of [
      'a.'.repeat(KIB64 / 2),
      'a'.repeat(200_000),
      'a://'.repeat(KIB64 / 4),
      `a://${'b'.repeat(KIB64)}`,
      `${'a'.repeat(100)}://${':'.repeat(KIB64)}`,
    ]) {
      const { ms } = timed(() => redactUrlCredentials(hostile));
      expect(ms).toBeLessThan(LINEAR_MS);
    }
  });

  it('the download directory: removed from a path as before, and fast on a 200,000-character path', () => {
    expect(
      withoutDir("cannot read /tmp/etcd-doctor-analyze-123-abc/F0ABC123/etcd.log.gz: it's corrupt"),
    ).toBe("cannot read etcd.log.gz: it's corrupt");
    for (const hostile of [
      `/tmp/${'a'.repeat(200_000)} is corrupt`,
      `${'etcd-doctor-analyze-'.repeat(KIB64 / 20)}`,
      `(${"'".repeat(KIB64)}`,
    ]) {
      const { value, ms } = timed(() => withoutDir(hostile));
      expect(ms).toBeLessThan(LINEAR_MS);
      expect(value.length).toBeLessThanOrEqual(4 * MAX_MESSAGE_CHARS);
    }
  });
});

/** A YAML "billion laughs": nine aliases a level, nine levels. */
function aliasBomb(): string {
  const lines = ['apiVersion: v1', 'kind: PodList', `l0: &l0 [${Array(9).fill('"lol"').join(',')}]`];
  for (let i = 1; i <= 9; i++)
    lines.push(
      `l${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(',')}]`,
    );
  lines.push('items: [*l9]');
  return `${lines.join('\n')}\n`;
}

describe('etcd-doctor analyze on a must-gather with a 200,000-character entry path', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'untrusted-text-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('answers in seconds with one line of at most a few hundred characters, exit 2', async () => {
    // The must-gather's root directory is 200,000 characters, and its pods.yaml an alias bomb:
    // the refusal names the entry, as it must, cut in its middle.
    const long = 'a'.repeat(200_000);
    const files = mustGatherFiles('openshift-4.14-healthy').map((f) => ({
      ...f,
      path: f.path.replace(MG_ROOT, `${long}/${MG_ROOT}`),
      ...(f.path.endsWith('openshift-etcd/core/pods.yaml') ? { content: aliasBomb() } : {}),
    }));
    const path = await writeTarball(join(tmp, 'must-gather.tar.gz'), files);
    const started = performance.now();
    const r = await cliInProcess(['analyze', path]);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 20);
    expect(r.stderr).toMatch(
      /^etcd-doctor: a+…\(\d{3},\d{3} characters\)….*\/core\/pods\.yaml in \S+must-gather\.tar\.gz holds aliases expanding past 100 nodes, over the limit/,
    );
  });
});

describe('etcd-doctor analyze on a bbolt file whose one bucket name is 200,000 characters', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'untrusted-bucket-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('refuses it in one line of at most a few hundred characters, exit 2', async () => {
    const path = join(tmp, 'snapshot.db');
    await writeLongBucketName(path, 200_000);
    const started = performance.now();
    const r = await cliInProcess(['analyze', path]);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 20);
    expect(r.stderr).toMatch(
      /snapshot\.db is a bbolt database but not etcd's: it has no key bucket \(buckets: b+…/,
    );
  });
});
