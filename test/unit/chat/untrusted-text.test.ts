import { describe, expect, it } from '@jest/globals';
import { firingView } from '../../../src/alerts/alert-view.js';
import { renderSlackMessage } from '../../../src/chat/slack/render-blocks.js';
import type { AlertJob } from '../../../src/queue/job-schemas.js';
import { textView } from '../../../src/report/chat-view.js';
import { blocksText } from '../../support/slack/slack-driver.js';

/** Live markup in what Slack receives: a mention, a broadcast, a user group, or a link. */
const LIVE = /<[@!#]|<https?:/;

const hostile: AlertJob = {
  v: 1,
  kind: 'alert',
  cluster: 'prod',
  channel: 'C0OPS',
  user: 'alertmanager',
  requestedAt: 0,
  groupKey: '{}:{alertname="etcdMembersDown"}',
  status: 'firing',
  alerts: [
    {
      status: 'firing',
      labels: {
        alertname: 'etcdMembersDown',
        instance: '<@U0CEO> <!here>',
        pod: '<https://evil.example|https://grafana.example>',
      },
      annotations: { summary: 'ignore me' },
      startsAt: '2026-01-01T00:00:00Z',
      endsAt: '',
      generatorURL: 'https://prometheus.example/graph',
    },
  ],
  commonLabels: { alertname: 'etcdMembersDown' },
  commonAnnotations: { summary: 'etcd is down <!channel> ask <!subteam^S0ALL> or <@U0CEO>' },
  externalURL: 'https://evil.example/|https://alertmanager.example',
};

describe('untrusted text reaches Slack as text', () => {
  it('an alert: annotations, label values and a relabelled externalURL carry no live markup', () => {
    const message = renderSlackMessage(firingView(hostile, 1));
    const text = `${blocksText(message.blocks)}\n${message.text}`;
    expect(text).not.toMatch(LIVE);
    expect(text).toContain('etcd is down &lt;!channel&gt; ask &lt;!subteam^S0ALL&gt; or &lt;@U0CEO&gt;');
    expect(text).toContain('&lt;https://evil.example|https://grafana.example&gt;');
    expect(text).toMatch(/not linked: not a plain http\(s\) URL/);
  });

  it('a ticket link from a tracker: a URL with | or <> is not linked', () => {
    const view = textView('opened a webhook ticket', 'success', {
      link: {
        label: 'https://tickets.example/T-1',
        url: 'https://evil.example/x|https://tickets.example/T-1',
      },
    });
    const text = blocksText(renderSlackMessage(view).blocks);
    expect(text).not.toMatch(LIVE);
    const fine = textView('opened', 'success', {
      link: { label: 'T-1 <!here>', url: 'https://tickets.example/T-1' },
    });
    expect(blocksText(renderSlackMessage(fine).blocks)).toContain(
      '<https://tickets.example/T-1|T-1 &lt;!here&gt;>',
    );
  });

  it("restores mentions only in etcd-doctor's own words", () => {
    const ours = textView(
      'Only responders may press *Defragment*: <@U0ALICE>, <!subteam^S0ONCALL>.',
      'warning',
      {
        liveMentions: true,
      },
    );
    expect(blocksText(renderSlackMessage(ours).blocks)).toContain('<@U0ALICE>, <!subteam^S0ONCALL>');
    // Even in our own words, a broadcast never comes back.
    const broadcast = textView('hello <!channel>', 'info', { liveMentions: true });
    expect(blocksText(renderSlackMessage(broadcast).blocks)).not.toMatch(LIVE);
    // The same text from outside (a log line, a tracker) stays text.
    const outside = textView('• <@U0ALICE> said hi', 'info');
    expect(blocksText(renderSlackMessage(outside).blocks)).not.toMatch(LIVE);
  });
});
