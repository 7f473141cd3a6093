import { z } from 'zod';

/**
 * Alertmanager's webhook body, version 4 (prometheus.io/docs/alerting/latest/configuration/#webhook_config).
 * Unknown fields (`truncatedAlerts`, future ones) are allowed; the ones we use are checked.
 */
const labelSet = z.record(z.string(), z.string());
const status = z.enum(['firing', 'resolved']);

export const alertSchema = z.object({
  status,
  labels: labelSet,
  annotations: labelSet.default({}),
  startsAt: z.string(),
  endsAt: z.string().default(''),
  generatorURL: z.string().default(''),
  fingerprint: z.string().default(''),
});

export const alertmanagerPayloadSchema = z.object({
  version: z.literal('4', { error: 'must be "4" (Alertmanager webhook version 4)' }),
  groupKey: z.string().min(1),
  truncatedAlerts: z.number().int().nonnegative().default(0),
  status,
  receiver: z.string(),
  groupLabels: labelSet,
  commonLabels: labelSet,
  commonAnnotations: labelSet.default({}),
  externalURL: z.string().default(''),
  alerts: z.array(alertSchema).min(1, { error: 'needs at least one alert' }),
});

export type AlertmanagerPayload = z.infer<typeof alertmanagerPayloadSchema>;
export type AlertmanagerAlert = z.infer<typeof alertSchema>;

/** The alerts of a payload, by the value of `label` (the alert's own label, else the group's). */
export function alertsByCluster(
  payload: AlertmanagerPayload,
  label: string,
): { byCluster: Map<string, AlertmanagerAlert[]>; unlabelled: number } {
  const byCluster = new Map<string, AlertmanagerAlert[]>();
  let unlabelled = 0;
  for (const alert of payload.alerts) {
    const cluster = alert.labels[label] ?? payload.commonLabels[label] ?? payload.groupLabels[label];
    if (cluster === undefined) {
      unlabelled += 1;
      continue;
    }
    byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), alert]);
  }
  return { byCluster, unlabelled };
}
