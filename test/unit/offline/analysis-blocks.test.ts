import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { renderSlackMessage } from '../../../src/chat/slack/render-blocks.js';
import { analyzePaths } from '../../../src/offline/analyze.js';

const LOGS = join(import.meta.dirname, '../../fixtures/offline/logs');

describe('an analysis in Slack', () => {
  it('shows the timeline compactly, escaped: names from files are untrusted text', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-blocks-'));
    try {
      const hostile = join(dir, '<!channel> *m2*.log');
      await copyFile(join(LOGS, 'journald-master-2.log'), hostile);
      const report = await analyzePaths([hostile]);
      const message = renderSlackMessage({ kind: 'report', report, buttons: [] });
      // Header text is plain_text, which Slack never parses for mentions; mrkdwn must be escaped.
      const text = JSON.stringify(message.blocks.filter((b) => b.type !== 'header'));
      expect(message.blocks[0]).toMatchObject({
        type: 'header',
        text: { text: expect.stringMatching(/^Analysis of /) },
      });
      expect(text).toContain('*Timeline* (UTC)');
      expect(text).toContain('12:26:12–12:26:27  &lt;!channel&gt; *m2*: 14 × slow fdatasync (up to 4.0 s)');
      expect(text).toContain('*Members*\\n_none in the collection (no etcd_info)_');
      expect(text).not.toContain('<!channel>');
      expect(text).toMatch(/Not evaluated offline \(they need live readings\): [^"]*clock-skew/);
      expect(text).not.toMatch(/Not evaluated offline \(they need live readings\): [^"]*slow-disk/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a quiet log says healthy as far as the logs show; unexplained errors are "Not explained", never "No problems found"', async () => {
    const quiet = renderSlackMessage({
      kind: 'report',
      report: await analyzePaths([join(LOGS, 'quiet-etcd-1.log')]),
      buttons: [],
    });
    const quietText = JSON.stringify(quiet.blocks);
    expect(quietText).toContain(
      ':white_check_mark: Healthy as far as the logs show: nothing wrong in 51 etcd log lines',
    );
    expect(quietText).not.toContain('No problems found');
    const errors = JSON.stringify(
      renderSlackMessage({
        kind: 'report',
        report: await analyzePaths([join(LOGS, 'unexplained-etcd-2.log')]),
        buttons: [],
      }).blocks,
    );
    expect(errors).toContain('Not explained');
    expect(errors).toContain('failed to purge snap db file');
    expect(errors).not.toMatch(/No problems found|Root cause/);
  });
});
