/**
 * Remediation action ids: each is a button whose press runs an action of src/remediation/actions/
 * (confirmation, authorisation, a remediation job, the audit trail).
 */
export const REMEDIATION_ACTION_IDS = [
  'open-ticket',
  'defragment',
  'recover-nospace',
  'restart-static-pod',
  'disk-benchmark',
  'replace-member',
  'promote-learner',
  'snooze',
] as const;

/**
 * Buttons the chat side answers itself (bot/handle-action.ts): their press queues a read-only job
 * straight away (a check again, what fills etcd, the recovery plan after quorum loss) and never
 * becomes a remediation.
 */
export const CHAT_BUTTON_KINDS = ['rerun', 'space', 'recovery-plan'] as const;

/**
 * Every button's kind. A list, not only a type: a stored plan names its action, and the plan store
 * checks it without the chat's views.
 */
export const ACTION_IDS = [...REMEDIATION_ACTION_IDS, ...CHAT_BUTTON_KINDS] as const;

export type ActionId = (typeof ACTION_IDS)[number];
export type RemediationActionId = (typeof REMEDIATION_ACTION_IDS)[number];
export type ChatButtonKind = (typeof CHAT_BUTTON_KINDS)[number];

const KNOWN: ReadonlySet<string> = new Set(ACTION_IDS);
const CHAT_SIDE: ReadonlySet<string> = new Set(CHAT_BUTTON_KINDS);

export function isActionId(value: string): value is ActionId {
  return KNOWN.has(value);
}

export function isChatButtonKind(value: string): value is ChatButtonKind {
  return CHAT_SIDE.has(value);
}
