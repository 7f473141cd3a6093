import { describe, expect, it } from '@jest/globals';
import { alertsByCluster, alertmanagerPayloadSchema } from '../../../src/alerts/alertmanager-payload.js';
import { firingView, resolvedView } from '../../../src/alerts/alert-view.js';
import { type AlertJob, alertJobSchema } from '../../../src/queue/job-schemas.js';

/**
 * What the channel shows for an Alertmanager notification: the webhook body as Alertmanager sends
 * it (version 4), read by the real schema, split by cluster, and turned into the thread's root.
 */

const member = (instance: string, status: 'firing' | 'resolved' = 'firing') => ({
  status,
  labels: {
    alertname: 'etcdMembersDown',
    cluster: 'prod',
    job: 'etcd',
    severity: 'critical',
    instance,
  } as Record<string, string>,
  annotations: { summary: 'etcd cluster "prod": members are down (1).' },
  startsAt: '2026-12-05T03:12:00Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'http://127.0.0.1:9090/graph?g0.expr=up',
  fingerprint: instance,
});

/** A webhook body, with `alerts` and what the group has in common. */
function body(alerts: Array<ReturnType<typeof member>>, extra: Record<string, unknown> = {}) {
  return {
    version: '4',
    groupKey: '{}/{severity="critical"}:{alertname="etcdMembersDown"}',
    status: alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
    receiver: 'etcd-doctor',
    groupLabels: { alertname: 'etcdMembersDown' },
    commonLabels: { alertname: 'etcdMembersDown', cluster: 'prod', severity: 'critical' },
    commonAnnotations: { summary: 'etcd cluster "prod": members are down (1).' },
    externalURL: 'http://127.0.0.1:9093',
    alerts,
    ...extra,
  };
}

/** The job the route queues for one cluster of a payload (src/alerts/alertmanager-route.ts), as a worker reads it. */
function jobOf(raw: unknown, cluster: string): AlertJob {
  const payload = alertmanagerPayloadSchema.parse(raw);
  const alerts = alertsByCluster(payload, 'cluster').byCluster.get(cluster) ?? [];
  return alertJobSchema.parse({
    v: 1,
    kind: 'alert',
    cluster,
    groupKey: payload.groupKey,
    status: payload.status,
    alerts: alerts.map(({ fingerprint: _, ...a }) => a),
    commonLabels: payload.commonLabels,
    commonAnnotations: payload.commonAnnotations,
    externalURL: payload.externalURL,
    channel: 'C0ALERTS',
    user: 'alertmanager',
    requestedAt: Date.parse('2026-12-05T03:13:00Z'),
  });
}

describe('the root message of an alert thread', () => {
  it('firing: the alert and cluster in the title, the summary, one line per alert by its own labels', () => {
    const view = firingView(jobOf(body([member('127.0.0.1:2379')]), 'prod'), 1);
    expect(view.title).toBe('🔥 FIRING: etcdMembersDown on prod');
    expect(view.tone).toBe('error');
    expect(view.lines).toEqual([
      'etcd cluster "prod": members are down (1).',
      // The labels every alert shares (alertname, cluster, job, severity) say nothing here.
      '• firing `instance=127.0.0.1:2379` since 2026-12-05T03:12:00Z',
      'Diagnosis in the thread.',
    ]);
    expect(view.link).toEqual({ label: 'Open in Alertmanager', url: 'http://127.0.0.1:9093' });
    // The text came from outside: a mention in it must stay text.
    expect(view.liveMentions).toBeUndefined();
  });

  it('fired again: says so and where the latest diagnosis is; more than five alerts are counted, not listed', () => {
    const alerts = Array.from({ length: 7 }, (_, i) => member(`127.0.0.${i + 1}:2379`));
    const view = firingView(jobOf(body(alerts), 'prod'), 3);
    expect(view.lines.filter((l) => l.startsWith('• firing'))).toHaveLength(5);
    expect(view.lines).toContain('…and 2 more alerts');
    expect(view.lines.at(-1)).toBe(
      'Fired again (3 notifications); the latest diagnosis is at the bottom of the thread.',
    );
  });

  it('resolved: when it fired and when it ended; a link that is not http(s) is not offered', () => {
    const raw = body([member('127.0.0.1:2379', 'resolved')], { externalURL: '' });
    raw.alerts[0] = { ...member('127.0.0.1:2379', 'resolved'), generatorURL: 'javascript:alert(1)' };
    const firedAt = Date.parse('2026-12-05T03:12:00Z');
    const view = resolvedView(jobOf(raw, 'prod'), firedAt, Date.parse('2026-12-05T03:40:00Z'));
    expect(view.title).toBe('✅ RESOLVED: etcdMembersDown on prod');
    expect(view.tone).toBe('success');
    expect(view.lines[0]).toBe(
      'Resolved at 2026-12-05T03:40:00.000Z, after firing since 2026-12-05T03:12:00.000Z.',
    );
    expect(view.link).toBeUndefined();
  });

  it('a payload of two clusters makes one thread each; an alert naming none is counted, not guessed', () => {
    const staging = {
      ...member('127.0.0.9:2379'),
      labels: { ...member('x').labels, cluster: 'staging', instance: '127.0.0.9:2379' },
    };
    const unnamed = {
      ...member('127.0.0.8:2379'),
      labels: { alertname: 'etcdMembersDown', instance: '127.0.0.8:2379' },
    };
    const payload = alertmanagerPayloadSchema.parse(
      body([member('127.0.0.1:2379'), staging, unnamed], { commonLabels: { alertname: 'etcdMembersDown' } }),
    );
    const { byCluster, unlabelled } = alertsByCluster(payload, 'cluster');
    expect([...byCluster.keys()].sort()).toEqual(['prod', 'staging']);
    expect(unlabelled).toBe(1);
  });

  it('a body that is not Alertmanager version 4 is refused with what is wrong', () => {
    const parsed = alertmanagerPayloadSchema.safeParse({ ...body([member('127.0.0.1:2379')]), version: '3' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('must be "4" (Alertmanager webhook version 4)');
  });
});
