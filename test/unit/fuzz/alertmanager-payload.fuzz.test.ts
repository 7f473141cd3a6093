import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import '../../support/fuzz-seed.js';
import { alertmanagerPayloadSchema, alertsByCluster } from '../../../src/alerts/alertmanager-payload.js';
import { formatZodError } from '../../../src/config/load-config.js';

/**
 * The Alertmanager webhook body (POST /alertmanager) never crashes the parser: any JSON gives a
 * version-4 payload or one line naming the field, the line the route answers with 400.
 */
const injection = fc.constantFrom(
  '"; DROP TABLE alerts; --',
  '$(curl 127.0.0.1)',
  '<!channel>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell-shaped input, on purpose
  '${jndi:ldap://127.0.0.1/a}',
  '\u0000\u202e\ufeff',
  '__proto__',
  'constructor',
);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  injection,
);
const labels = fc.dictionary(fc.oneof(text, fc.constantFrom('cluster', 'alertname', '__proto__')), text, {
  maxKeys: 5,
});
const alert = fc.record(
  {
    status: fc.oneof(fc.constantFrom('firing', 'resolved'), text),
    labels,
    annotations: labels,
    startsAt: text,
    endsAt: text,
    fingerprint: text,
  },
  { requiredKeys: [] },
);
const payload = fc.record(
  {
    version: fc.oneof(fc.constant('4'), fc.constant(4), text),
    groupKey: text,
    truncatedAlerts: fc.oneof(fc.nat(), fc.integer(), fc.double(), text),
    status: fc.oneof(fc.constantFrom('firing', 'resolved'), text),
    receiver: text,
    groupLabels: labels,
    commonLabels: labels,
    commonAnnotations: labels,
    externalURL: text,
    alerts: fc.oneof(fc.array(alert, { maxLength: 5 }), fc.anything({ maxDepth: 2 })),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  payload,
  fc.anything({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 4 }),
  fc.array(alert, { minLength: 1000, maxLength: 2000 }).map((alerts) => ({
    version: '4',
    groupKey: 'g',
    status: 'firing',
    receiver: 'r',
    groupLabels: {},
    commonLabels: { cluster: 'prod' },
    alerts,
  })),
);

const oneLine = (error: string) =>
  error.length > 0 && !error.includes('\n') && error.length < 2000 && !/\bat .*\(.*:\d+:\d+\)/.test(error);

describe('Alertmanager webhook body under fuzzing', () => {
  it('any JSON: a version-4 payload grouped by cluster, or one clear line; never a throw', () => {
    fc.assert(
      fc.property(body, (raw) => {
        const parsed = alertmanagerPayloadSchema.safeParse(raw);
        if (!parsed.success) {
          expect(oneLine(formatZodError(parsed.error))).toBe(true);
          return;
        }
        const { byCluster, unlabelled } = alertsByCluster(parsed.data, 'cluster');
        const grouped = [...byCluster.values()].reduce((n, alerts) => n + alerts.length, 0);
        expect(grouped + unlabelled).toBe(parsed.data.alerts.length);
      }),
      { numRuns: 200 },
    );
  });

  it('a label named __proto__ neither pollutes objects nor becomes a cluster by accident', () => {
    const raw = JSON.parse(
      '{"version":"4","groupKey":"g","status":"firing","receiver":"r","groupLabels":{},' +
        '"commonLabels":{},"alerts":[{"status":"firing","startsAt":"","labels":{"__proto__":{"cluster":"x"}}}]}',
    ) as unknown;
    const parsed = alertmanagerPayloadSchema.safeParse(raw);
    if (parsed.success) expect(alertsByCluster(parsed.data, 'cluster').byCluster.has('x')).toBe(false);
    expect(({} as Record<string, unknown>).cluster).toBeUndefined();
  });
});
