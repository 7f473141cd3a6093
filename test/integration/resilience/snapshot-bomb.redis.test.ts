import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { baseEnv, connectStdio, type StdioSession, texts } from '../../support/chat/mcp-client.js';
import { writeSnapshotBomb } from '../../support/offline/snapshot-bomb.js';
import { CLI_BIN } from '../../support/process/cli-process.js';
import { type ProcessPeak, watchPeakRss } from '../../support/process/peak-rss.js';
import {
  isAlive,
  killWorkers,
  startWorkerProcess,
  type WorkerProcess,
  waitUntil,
} from '../../support/process/worker-process.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { blocksText, sendFileShare } from '../../support/slack/slack-driver.js';
import { eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * The review's snapshot bomb (issue 38, H1), for real: a 64 MiB bbolt file (~65 KB gzipped) whose
 * key bucket is 33 levels of branch pages, each overflowing to the file's end, so that every page
 * id is in range and read once, within the depth limit. A reader that holds a buffer per level
 * held ~33x the file: 2.2 GB RSS in 17-19 s, in `etcd-doctor analyze` and in a worker's analysis
 * thread alike. Through the CLI, stdio MCP and a file dropped into Slack (a real worker process), the
 * answer is one short line saying the file is no sane bbolt file, within seconds, and no process
 * (the entry's, or the analysis process below it) passes 400 MiB.
 */

const MAX_RSS_BYTES = 400 * 1024 ** 2;
/**
 * "Within seconds": 1-4 s measured on a quiet host (the old reading: 9-19 s, and 2.2 GB), 7-33 s at a
 * load of 30 on the shared 2-core host, where the 64 MiB download alone takes seconds. The answer's
 * words and the peak RSS tell the old reading apart; this bounds a hang.
 */
const ANSWER_WITHIN_MS = 60_000;
/** "One short line". */
const MAX_LINE_CHARS = 300;
const SANE =
  /snapshot\.db is not a sane bbolt file: page 4 \(the key bucket\) spans 64 MiB, over the 1 MiB a branch page holds; copy the snapshot again/;
const DM = 'D0BOMB0001';

let dir: string;
let bomb: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-snapshot-bomb-'));
  bomb = join(dir, 'snapshot.db');
  await writeSnapshotBomb(bomb);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The peaks over the limit, for a failure message that names each process. */
const over = (peaks: ProcessPeak[]) => peaks.filter((p) => p.peakBytes >= MAX_RSS_BYTES);

it('the file is the review’s: 64 MiB, ~65 KB gzipped', async () => {
  expect((await stat(bomb)).size).toBe(64 * 1024 ** 2);
  expect(gzipSync(await readFile(bomb)).length).toBeLessThan(100 * 1024);
});

describe('etcd-doctor analyze snapshot.db (the CLI, a process of its own)', () => {
  it('answers in one line within seconds, exit 2, under 400 MiB (GNU time: the largest of the CLI and its children)', async () => {
    const started = Date.now();
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        '/usr/bin/time',
        ['-f', 'maxrss_kib=%M', process.execPath, CLI_BIN, 'analyze', bomb],
        { env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
        (err, stdout, stderr) =>
          resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr }),
      );
    });
    const tookMs = Date.now() - started;
    const lines = run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('Command exited'));
    const maxRssBytes = Number(/maxrss_kib=(\d+)/.exec(run.stderr)?.[1]) * 1024;
    expect({ code: run.code, stdout: run.stdout, lines: lines.length - 1 }).toEqual({
      code: 2,
      stdout: '',
      lines: 1,
    });
    expect(lines[0]).toMatch(SANE);
    expect(lines[0]?.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect({ maxRssBytes, under: maxRssBytes < MAX_RSS_BYTES }).toEqual({ maxRssBytes, under: true });
    expect(tookMs).toBeLessThan(ANSWER_WITHIN_MS);
  }, 150_000);
});

describe('etcd-doctor mcp (stdio): etcd_analyze on it', () => {
  let session: StdioSession;
  beforeAll(async () => {
    const config = join(dir, 'mcp.yaml');
    await writeFile(
      config,
      stringify({
        clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } }],
        mcp: { analyzeRoots: [dir] },
      }),
    );
    session = await connectStdio(['--config', config], baseEnv());
  }, 60_000);
  afterAll(async () => {
    await session?.close();
  });

  it('is a tool error of one line within seconds; the server and its analysis stay under 400 MiB', async () => {
    const pid = session.pid();
    if (pid === null) throw new Error('the MCP server is not running');
    const watch = watchPeakRss(pid);
    const started = Date.now();
    const result = (await session.client.callTool(
      { name: 'etcd_analyze', arguments: { paths: [bomb] } },
      undefined,
      { timeout: 120_000 },
    )) as CallToolResult;
    const tookMs = Date.now() - started;
    const peaks = watch.stop();
    expect(result.isError).toBe(true);
    const [line = ''] = texts(result);
    expect(line).toMatch(SANE);
    expect(line.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect(over(peaks)).toEqual([]);
    expect(tookMs).toBeLessThan(ANSWER_WITHIN_MS);
    // The server answers the next call.
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toContain('etcd_analyze');
  }, 150_000);
});

describe('snapshot.db dropped into a DM (the chat path: a real worker process)', () => {
  const prefix = testPrefix('snapshot-bomb');
  let fake: FakeSlack;
  let chat: SlackAdapter;
  let roles: RunningRoles;
  let worker: WorkerProcess;

  beforeAll(async () => {
    fake = await startFakeSlack();
    // Never probed: offline analysis needs no cluster.
    const config = { clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } }] };
    const configPath = join(dir, 'etcd-doctor.yaml');
    await writeFile(configPath, JSON.stringify(config));
    chat = httpSlackAdapter(fake);
    roles = await startRoles({
      role: 'bot',
      chat,
      config: configFileSchema.parse(config),
      redisUrl: REDIS_URL,
      queuePrefix: prefix,
      logger: silentLogger,
    });
    // The deployment's worker heap (deploy/kubernetes/base/deployment-worker.yaml).
    worker = startWorkerProcess({
      configPath,
      prefix,
      slackApiUrl: fake.url,
      nodeOptions: '--max-old-space-size=256',
    });
    await waitUntil(worker.started, 30_000, 'the worker started');
  }, 60_000);

  afterAll(async () => {
    killWorkers([worker]);
    await roles?.stop();
    await fake?.close();
    await purgePrefix(prefix);
    // A worker killed mid-job leaves its download directory (its next start would sweep it).
    const pid = worker?.child.pid;
    for (const name of pid ? await readdir(tmpdir()) : [])
      if (name.startsWith(`etcd-doctor-analyze-${pid}-`))
        await rm(join(tmpdir(), name), { recursive: true, force: true });
  });

  it('is answered in its thread in one short line within seconds; the worker lives, under 400 MiB', async () => {
    const watch = watchPeakRss(worker.child.pid ?? -1);
    const file = fake.shareFile({
      name: 'snapshot.db',
      content: await readFile(bomb),
      mimetype: 'application/octet-stream',
    });
    const ts = `${Math.floor(Date.now() / 1000)}.000001`;
    const started = Date.now();
    const res = await sendFileShare(eventsUrl(chat), {
      channel: DM,
      user: 'U0STRANGER',
      ts,
      file,
      eventId: 'Ev0BOMB001',
    });
    expect(res.status).toBe(200);
    // Past the acknowledgement ("Analysing snapshot.db: the answer follows here.").
    const answers = () =>
      fake
        .messages(DM)
        .filter((m) => m.thread_ts === ts && !m.text.startsWith('Analysing '))
        .map((m) => `${m.text}\n${blocksText(m.blocks)}`);
    await fake.waitFor(() => answers().length > 0, 120_000);
    const tookMs = Date.now() - started;
    const peaks = watch.stop();
    const [answer = ''] = answers();
    expect(answer).toMatch(/Could not analyse snapshot\.db/);
    const line = answer.split('\n').find((l) => SANE.test(l)) ?? answer;
    expect(line).toMatch(SANE);
    expect(line.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect(answer).not.toMatch(/etcd-doctor-analyze-|\/tmp\//);
    expect(over(peaks)).toEqual([]);
    expect(tookMs).toBeLessThan(ANSWER_WITHIN_MS);
    expect(isAlive(worker)).toBe(true);
  }, 150_000);
});
