/**
 * Remediation action ids; each becomes a button (src/remediation/actions/). A list, not only a
 * type: a stored plan names its action, and the plan store checks it without the chat's views.
 */
export const ACTION_IDS = [
  'open-ticket',
  'defragment',
  'recover-nospace',
  'restart-static-pod',
  'disk-benchmark',
  'replace-member',
  'promote-learner',
  'rerun',
  'snooze',
  'space',
] as const;

export type ActionId = (typeof ACTION_IDS)[number];

const KNOWN: ReadonlySet<string> = new Set(ACTION_IDS);

export function isActionId(value: string): value is ActionId {
  return KNOWN.has(value);
}
