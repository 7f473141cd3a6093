import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createShellAdapter } from '../../../src/chat/shell/shell-adapter.js';

const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A shell that writes its uploads into `fileDir`; returns what it printed for one chart. */
async function uploadChart(fileDir: string, bytes: Buffer): Promise<string> {
  const output = new PassThrough();
  let out = '';
  output.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const chat = createShellAdapter({ input: new PassThrough(), output, interactive: false, fileDir });
  await chat.upload?.(
    { channel: 'shell', thread: { channel: 'shell', ts: '3' } },
    { filename: 'local-wal-fsync-p99.png', title: 'local: wal fsync p99 per member', content: bytes },
  );
  return out;
}

describe('the shell writes each chart to a file of its own', () => {
  it("a second shell (a second run) does not replace the first one's chart, and both paths are printed", async () => {
    const fileDir = await mkdtemp(join(tmpdir(), 'etcd-doctor-upload-'));
    dirs.push(fileDir);
    const first = await uploadChart(fileDir, Buffer.from('first chart'));
    const second = await uploadChart(fileDir, Buffer.from('second chart'));
    const pathOf = (printed: string) => /: (\S+\.png)$/m.exec(printed)?.[1] ?? '';
    expect(pathOf(first)).not.toBe('');
    expect(pathOf(second)).not.toBe(pathOf(first));
    // The name says which process wrote it, so two processes numbering from 1 do not meet.
    expect(pathOf(first)).toContain(`-${process.pid}-`);
    expect(await readdir(fileDir)).toHaveLength(2);
    expect((await readFile(pathOf(first))).toString()).toBe('first chart');
    expect((await readFile(pathOf(second))).toString()).toBe('second chart');
  });
});
