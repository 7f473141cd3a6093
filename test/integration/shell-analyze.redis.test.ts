import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../src/config/schema.js';
import { runShell } from '../../src/roles/shell.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

/**
 * The shell chat's `analyze <path...>`: the same path as a file shared in Slack (the chat side
 * queues an analyze job, a worker answers), with paths on this machine. Piped input, as
 * `echo 'analyze etcd.log' | etcd-doctor shell` runs it.
 */

const SLOW_DISK_LOG = fileURLToPath(
  new URL(
    '../fixtures/kube/leaderelection-restarts/logs/kube-system/etcd-master-2/etcd.log',
    import.meta.url,
  ),
);
const prefix = testPrefix('shell-analyze');
let dir: string;

async function shell(lines: string[]): Promise<string> {
  const output = new PassThrough();
  let text = '';
  output.on('data', (b: Buffer) => {
    text += b.toString();
  });
  const config = configFileSchema.parse({
    clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } }],
  });
  await runShell({
    config,
    input: Readable.from([`${lines.join('\n')}\n`]),
    output,
    interactive: false,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
  });
  return text;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-shell-analyze-'));
  await writeFile(join(dir, 'empty.log'), '');
  await writeFile(join(dir, 'notes.txt'), 'remember to buy milk\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await purgePrefix(prefix);
});

describe('shell analyze', () => {
  it('names the root cause of a log on this machine, as a worker answer', async () => {
    const out = await shell([`analyze ${SLOW_DISK_LOG}`]);
    expect(out).toContain('Analysing etcd.log: the answer follows here.');
    expect(out).toMatch(/#\d+ .*etcd\.log.*CRITICAL/);
    expect(out).toMatch(/slow-disk/);
    expect(out).toContain('etcd-master-2');
  });

  it('says how to use it without a path, and passes on what the analysis says of bad input', async () => {
    const out = await shell([
      'analyze',
      `/etcd analyze ${join(dir, 'empty.log')}`,
      `analyze ${join(dir, 'notes.txt')}`,
      `analyze ${join(dir, 'missing.log')}`,
    ]);
    expect(out).toContain('Usage: analyze <path...>');
    expect(out).toMatch(/Could not analyse .*empty\.log[\s\S]*is empty: give the etcd log itself/);
    expect(out).toMatch(/Could not analyse .*notes\.txt[\s\S]*no etcd log lines found/);
    expect(out).toMatch(/missing\.log: no such file or directory/);
    expect(out).not.toMatch(/at .*\.ts:\d+/);
  });
});
