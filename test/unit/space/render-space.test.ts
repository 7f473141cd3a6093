import { describe, expect, it } from '@jest/globals';
import {
  renderSpaceChart,
  spaceAltText,
  spaceChartOf,
  spaceChartSpec,
} from '../../../src/charts/space-chart.js';
import { type MemberRole, pickFollower } from '../../../src/probes/space/member-roles.js';
import {
  renderSpaceText,
  scanWords,
  spaceChatLines,
  spaceHeadline,
} from '../../../src/space/render-space.js';
import type { SpaceReport } from '../../../src/space/space-report.js';
import { textView } from '../../../src/report/chat-view.js';
import { renderViewText } from '../../../src/report/render-view-text.js';

function report(over: Partial<SpaceReport> = {}): SpaceReport {
  return {
    cluster: 'prod',
    measuredAt: '2026-12-05T01:00:00.000Z',
    revision: 5000,
    compactRevision: 4800,
    dbSize: 1_900_000_000,
    dbSizeInUse: 1_700_000_000,
    quota: 2_147_483_648,
    totalKeys: 3,
    totalBytes: 1_500_000_000,
    byResource: [
      { resource: 'events', prefix: '/registry/events/', keys: 2, bytes: 1_100_000_000, share: 0.7333 },
      {
        resource: 'widgets.example.com',
        prefix: '/registry/example.com/widgets/',
        keys: 1,
        bytes: 400_000_000,
        share: 0.2667,
      },
    ],
    byNamespace: [{ resource: 'events', namespace: 'ci', keys: 2, bytes: 1_100_000_000 }],
    largest: [{ key: '/registry/events/ci/`boom`', bytes: 600_000_000, resource: 'events' }],
    churn: [{ resource: 'events', writesPerSecond: 412.5 }],
    churnWindow: { seconds: 5, writes: 2063, capped: false },
    scan: {
      complete: true,
      bytesRead: 1_500_000_000,
      durationMs: 300_000,
      member: 'etcd-2',
      endpoint: 'https://127.0.0.2:2379',
      bytesPerSecondLimit: 5_000_000,
      requests: 600,
      keysComplete: true,
    },
    dbMember: 'etcd-1',
    ...over,
  };
}

const role = (over: Partial<Extract<MemberRole, { ok: true }>>): MemberRole => ({
  endpoint: 'http://127.0.0.1:1',
  ok: true,
  id: '1',
  isLeader: false,
  hasLeader: true,
  isLearner: false,
  dbSizeBytes: 1,
  dbSizeInUseBytes: 1,
  revision: 1,
  raftAppliedIndex: 1,
  ...over,
});

describe('pickFollower', () => {
  it('never the leader, a learner or a member cut off from its leader; the one furthest along', () => {
    const roles = [
      role({ endpoint: 'leader', isLeader: true, raftAppliedIndex: 99 }),
      role({ endpoint: 'learner', isLearner: true, raftAppliedIndex: 98 }),
      role({ endpoint: 'lost', hasLeader: false, raftAppliedIndex: 97 }),
      role({ endpoint: 'behind', raftAppliedIndex: 10 }),
      role({ endpoint: 'ahead', raftAppliedIndex: 50 }),
      { endpoint: 'down', ok: false as const, error: 'deadline exceeded' },
    ];
    expect(pickFollower(roles)?.endpoint).toBe('ahead');
    expect(pickFollower(roles.slice(0, 3))).toBeUndefined();
  });
});

describe('the space answer in words', () => {
  it('leads with the resource that holds the most, the database against its quota, the writes', () => {
    const r = report();
    expect(spaceHeadline(r)).toBe(
      'prod: events hold the most, 1.1 GB (73 % of keys and values); database 1.9 GB of the 2.1 GB quota (88 %), 1.7 GB in use on etcd-1',
    );
    const text = renderSpaceText(r);
    expect(text).toMatch(
      /Revision 5000 \(compacted at 4800\): read from etcd-2, a follower, 1\.5 GB in 300 s, at most 5 MB\/s; complete\./,
    );
    expect(text).toMatch(/\n {2}events +2 +1\.1 GB +73 %\n {2}widgets\.example\.com +1 +400 MB +27 %/);
    expect(text).toContain('Writes over 5 s: events 412.5/s.');
  });

  it('a partial scan says where it stopped and that the key counts are whole', () => {
    const r = report({
      scan: {
        ...report().scan,
        complete: false,
        stoppedBecause: 'its time box ran out',
        nextKey: '/registry/pods/a',
      },
    });
    expect(scanWords(r)).toMatch(
      /PARTIAL: its time box ran out; bytes cover the keys before \/registry\/pods\/a \(key counts are complete\)\.$/,
    );
  });

  it('no scan: the headline says why nothing was read', () => {
    const r = report({
      byResource: [],
      scan: {
        ...report().scan,
        complete: false,
        member: null,
        stoppedBecause: 'no follower answered Status',
      },
    });
    expect(spaceHeadline(r)).toMatch(/the keyspace was not read \(no follower answered Status\)$/);
  });

  it('no live keys beside 14.9 MB in use: it says the rest is history that compaction gives back (issue 42)', () => {
    // The NOSPACE demo: keys written, then deleted, never compacted; "0 keys" alone read as nothing.
    const r = report({
      revision: 137,
      compactRevision: 0,
      dbSize: 17_700_000,
      dbSizeInUse: 14_900_000,
      quota: 16_800_000,
      totalKeys: 0,
      totalBytes: 0,
      byResource: [],
      byNamespace: [],
      largest: [],
      churn: [],
      scan: { ...report().scan, bytesRead: 0, durationMs: 91 },
    });
    const history =
      '14.9 MB in use, live keys and values 0 B: the rest, about 14.9 MB, is old revisions of overwritten and deleted keys, never compacted (revision 137); compacting to the current revision, then defragmenting, gives it back';
    expect(spaceHeadline(r)).toBe(
      `prod: database 17.7 MB of the 16.8 MB quota (105 %), 14.9 MB in use on etcd-1; ${history}`,
    );
    const text = renderSpaceText(r);
    expect(text).toContain(`  ${history}\n`);
    expect(text).not.toMatch(/By resource|Largest objects/);
    const chat = spaceChatLines(r);
    expect(chat).toContain(`${history}.`);
    expect(chat).not.toContain('*Largest objects:*');
    // Live data that fills the database is not called history.
    expect(spaceHeadline(report())).not.toMatch(/old revisions/);
  });

  it('in chat, a backtick in a key cannot close the code block it is shown in', () => {
    const lines = spaceChatLines(report());
    const block = lines.slice(lines.indexOf('*Largest objects:*') + 1);
    expect(block[0]).toBe('```');
    expect(block[1]).toBe("  600 MB  /registry/events/ci/'boom'");
    expect(block[2]).toBe('```');
  });

  it('in the shell, the code fences go and the rows stay', () => {
    const text = renderViewText(textView(spaceChatLines(report()), 'info', { title: 'What fills prod' }));
    expect(text).not.toContain('```');
    expect(text).toMatch(
      /^What fills prod\n.*\nRevision 5000 .*\nBy resource \(keys, key \+ value bytes, share\):\nevents +2 +1\.1 GB/,
    );
  });
});

describe('the space chart', () => {
  it('draws the quota line when it is in reach, and says every bar in the alt text', () => {
    const chart = spaceChartOf(report());
    const spec = JSON.stringify(spaceChartSpec(chart));
    expect(spec).toContain('#c0392b');
    expect(spaceAltText(chart)).toBe(
      "Horizontal bar chart of key and value bytes per resource in prod's etcd, revision 5000, complete scan: events 1.1 GB (73 %); widgets.example.com 400 MB (27 %). Grey line: the 1.9 GB database, 88 % of the 2.1 GB quota (red dashed line).",
    );
  });

  it('a quota far beyond the data is said, not drawn (the bars would be slivers)', () => {
    const small = report({
      dbSize: 1_000_000,
      byResource: [{ ...report().byResource[0]!, bytes: 800_000, share: 1 }],
    });
    const spec = spaceChartSpec(spaceChartOf(small)) as { title: { subtitle: string } };
    expect(JSON.stringify(spec)).not.toContain('#c0392b');
    expect(spec.title.subtitle).toMatch(/^quota 2\.1 GB, off the scale \(the database is 0 % of it\)/);
  });

  it('no resource name is ever part of a Vega expression; hostile names still draw', async () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', `evil'\u001b[31m\ue000"x`];
    const hostile = report({
      byResource: names.map((resource, i) => ({
        resource,
        prefix: '/x/',
        keys: 1,
        bytes: 1000 * (i + 1),
        share: 0.2,
      })),
    });
    const spec = spaceChartSpec(spaceChartOf(hostile));
    const expressions = JSON.stringify(spec).match(/"labelExpr":"(?:[^"\\]|\\.)*"/g) ?? [];
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'evil'])
      expect(expressions.join(' ')).not.toContain(name);
    const image = await renderSpaceChart(hostile);
    expect(image.png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(image.altText).toContain('constructor 1 KB');
  }, 30_000);
});
