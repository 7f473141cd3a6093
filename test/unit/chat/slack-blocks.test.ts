import { describe, expect, it } from '@jest/globals';
import { LIMITS } from '../../../src/chat/slack/blocks.js';
import { renderSlackMessage } from '../../../src/chat/slack/render-blocks.js';
import type { ChatView, ViewButton } from '../../../src/report/chat-view.js';
import { progressView } from '../../../src/report/chat-view.js';
import type { DiagnosisReport, FindingJson, MemberRow } from '../../../src/contracts/report-json.js';
import { parseButtonValue } from '../../../src/bot/handle-action.js';
import { validateBlocks } from '../../support/slack/fake-slack-blocks.js';
import { blocksText, buttonsIn } from '../../support/slack/slack-driver.js';

function memberRow(i: number, over: Partial<MemberRow> = {}): MemberRow {
  return {
    name: `etcd-${i}`,
    endpoint: `http://127.20.0.1${i}:2379`,
    id: `a${i}`,
    reachable: true,
    isLeader: i === 1,
    isLearner: false,
    access: null,
    tookMs: 3.2,
    dbSizeBytes: 25_000_000,
    dbSizeInUseBytes: 20_000_000,
    version: '3.5.9',
    raftTerm: 4,
    walFsyncP99Ms: 2.1,
    walFsyncSamples: 200,
    backendCommitP99Ms: 5,
    clockOffsetMs: 1,
    error: null,
    ...over,
  };
}

function finding(over: Partial<FindingJson>): FindingJson {
  return {
    cause: 'member-down',
    severity: 'critical',
    members: ['etcd-2'],
    nodes: [],
    summary: 'etcd-2 is down (not answering)',
    evidence: ['etcd-2 (http://127.20.0.12:2379) is unreachable (Status: connect ECONNREFUSED)'],
    remediation: [],
    causedBy: null,
    steps: [
      {
        text: 'Restart etcd-2 once it is understood why it stopped',
        action: 'restart-static-pod',
        args: { member: 'etcd-2' },
      },
    ],
    unknowns: [],
    ...over,
  };
}

function report(over: Partial<DiagnosisReport> = {}): DiagnosisReport {
  return {
    cluster: 'prod',
    status: 'critical',
    durationMs: 3200,
    members: [
      memberRow(1),
      memberRow(2, {
        reachable: false,
        isLeader: false,
        tookMs: null,
        dbSizeBytes: null,
        walFsyncP99Ms: null,
        error: 'etcd-2 did not answer Status within 3000 ms',
      }),
      memberRow(3),
    ],
    findings: [
      finding({}),
      finding({
        cause: 'leader-churn',
        severity: 'warning',
        members: [],
        summary: '3 leader changes in 10 min',
        causedBy: 'member-down',
        steps: [{ text: 'Look at the member that is down' }],
      }),
    ],
    probes: [{ name: 'member-list', ok: true, durationMs: 3, error: null }],
    kind: 'diagnose',
    collectedAt: '2026-11-29T03:00:00.000Z',
    ...over,
  };
}

const buttons: ViewButton[] = [
  {
    action: 'restart-static-pod',
    label: 'Restart etcd-2',
    value: '{"v":1,"plan":"AAAAAAAAAAAAAAAA"}',
    finding: 0,
  },
  {
    action: 'rerun',
    label: 'Re-run diagnosis',
    value: '{"v":1,"plan":"BBBBBBBBBBBBBBBB"}',
    finding: null,
    style: 'primary',
  },
];

describe('Block Kit rendering of a diagnosis', () => {
  it('shows a header, one line per member, the root cause with evidence, the symptoms it explains, and buttons', () => {
    const message = renderSlackMessage({ kind: 'report', report: report(), buttons });
    expect(validateBlocks(message.blocks, 'message')).toEqual([]);
    expect(message.blocks[0]).toMatchObject({
      type: 'header',
      text: { text: 'Diagnosis of prod: CRITICAL' },
    });
    const text = blocksText(message.blocks);
    expect(text).toMatch(/`etcd-1` \*leader\* · took 3\.2 ms · fsync p99 2\.1 ms · DB 25 MB/);
    expect(text).toMatch(/`etcd-2` \*down\*: etcd-2 did not answer Status within 3000 ms/);
    expect(text).toMatch(/`etcd-3` follower/);
    expect(text).toMatch(/\*Root cause: `member-down`\* \(critical\) on etcd-2/);
    expect(text).toContain('connect ECONNREFUSED');
    expect(text).toContain('*Symptoms it explains*');
    expect(text).toMatch(/Symptom of `member-down`: `leader-churn`/);
    expect(text).toContain('1. Restart etcd-2 once it is understood why it stopped');
    const found = buttonsIn(message.blocks);
    expect(found.map((b) => b.label)).toEqual(['Restart etcd-2', 'Re-run diagnosis']);
    expect(new Set(found.map((b) => b.actionId)).size).toBe(found.length);
    for (const b of found) expect(parseButtonValue(b.value)).toMatch(/^[AB]{16}$/);
    expect(message.attachment).toBeUndefined();
    expect(message.text).toBe('Diagnosis of prod: CRITICAL, member-down on etcd-2');
  });

  it('shows a learner as a learner, a member not checked as not checked (never down), and an unknown status', () => {
    const unknown = report({
      status: 'unknown',
      members: [
        memberRow(1, {
          reachable: null,
          isLeader: false,
          tookMs: null,
          access: {
            kind: 'client-cert-required',
            cause: 'no-access',
            reason: 'the server requires a client certificate',
            fix: 'set clusters[0].etcd.tls.certFile and keyFile',
          },
        }),
        memberRow(4, { isLeader: false, isLearner: true }),
      ],
      findings: [
        finding({
          cause: 'no-access',
          severity: 'warning',
          members: ['etcd-1'],
          summary:
            'etcd-doctor could not check prod: etcd-1: the server requires a client certificate: set clusters[0].etcd.tls.certFile and keyFile',
          steps: [],
        }),
      ],
    });
    const message = renderSlackMessage({ kind: 'report', report: unknown, buttons: [] });
    expect(validateBlocks(message.blocks, 'message')).toEqual([]);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Diagnosis of prod: UNKNOWN' } });
    const text = blocksText(message.blocks);
    expect(text).toContain(
      ':grey_question: `etcd-1` *not checked*: the server requires a client certificate',
    );
    expect(text).toMatch(/`etcd-4` learner · took/);
    expect(text).toContain("*etcd-doctor's view: `no-access`* (warning) on etcd-1");
    expect(text).not.toMatch(/Root cause|\*down\*/);
  });

  it('says so when nothing is wrong', () => {
    const message = renderSlackMessage({
      kind: 'report',
      report: report({ status: 'healthy', findings: [] }),
      buttons: [],
    });
    expect(blocksText(message.blocks)).toContain('No problems found.');
  });

  it('stays inside every Block Kit limit for a huge report and attaches the full text', () => {
    const members = Array.from({ length: 120 }, (_, i) => memberRow(i + 1));
    const findings = Array.from({ length: 40 }, (_, i) =>
      finding({
        cause: i === 0 ? 'slow-disk' : 'leader-churn',
        causedBy: i === 0 ? null : 'slow-disk',
        summary: `finding number ${i} ${'x'.repeat(4000)}`,
        evidence: Array.from({ length: 30 }, (_, j) => `evidence ${i}.${j}: wal fsync p99 212 ms`),
        steps: [{ text: `step of finding ${i}`, action: 'defragment', args: { member: `etcd-${i}` } }],
      }),
    );
    const many: ViewButton[] = [
      ...findings.map(
        (_, i): ViewButton => ({
          action: 'defragment',
          label: `Defragment etcd-${i} ${'y'.repeat(100)}`,
          value: `{"v":1,"plan":"P${String(i).padStart(15, '0')}"}`,
          finding: i,
        }),
      ),
      {
        action: 'rerun',
        label: 'Re-run diagnosis',
        value: '{"v":1,"plan":"RRRRRRRRRRRRRRRR"}',
        finding: null,
      },
    ];
    const message = renderSlackMessage({
      kind: 'report',
      report: report({ members, findings }),
      buttons: many,
    });
    expect(validateBlocks(message.blocks, 'message')).toEqual([]);
    expect(message.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    expect(blocksText(message.blocks).length).toBeLessThanOrEqual(LIMITS.totalText);
    // The re-run button and the note survive the cut.
    expect(buttonsIn(message.blocks).at(-1)?.label).toBe('Re-run diagnosis');
    expect(blocksText(message.blocks)).toContain('the full text is attached in this thread');
    expect(message.attachment?.filename).toBe('etcd-doctor-prod-diagnose-2026-11-29T03-00-00-000Z.txt');
    expect(message.attachment?.content).toContain('evidence 39.29: wal fsync p99 212 ms');
    expect(message.attachment?.content).toContain('etcd-120');
  });

  it('escapes Slack control characters in evidence', () => {
    const message = renderSlackMessage({
      kind: 'report',
      report: report({ findings: [finding({ evidence: ['peer <http://evil|click> & more'] })] }),
      buttons: [],
    });
    const text = blocksText(message.blocks);
    expect(text).toContain('peer &lt;http://evil|click&gt; &amp; more');
    expect(text).not.toContain('<http://evil');
  });
});

describe('Block Kit rendering of the other views', () => {
  it('shows progress as "Diagnosing *prod*: 2 of 6 probes done"', () => {
    const message = renderSlackMessage(progressView('diagnose', 'prod', 2, 6));
    expect(message.text).toBe('Diagnosing *prod*: 2 of 6 probes done');
    expect(validateBlocks(message.blocks, 'message')).toEqual([]);
  });

  it('splits a long text reply into sections within the limit', () => {
    const view: ChatView = {
      kind: 'text',
      tone: 'info',
      lines: Array.from({ length: 400 }, (_, i) => `line ${i} ${'z'.repeat(40)}`),
    };
    const message = renderSlackMessage(view);
    expect(validateBlocks(message.blocks, 'message')).toEqual([]);
    expect(message.blocks.length).toBeGreaterThan(1);
  });
});
