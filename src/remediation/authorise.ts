import type { RegisteredAction } from './action.js';

/** The user ids of a Slack user group; absent on chats without groups. */
export type GroupMembers = (groupId: string) => Promise<string[]>;

/**
 * Read-only actions are open to everyone in the channel; the others only to the cluster's
 * responders, listed as user ids (U…) or user-group ids (S…, resolved when asked). The click path
 * asks at the press, and the worker asks again right before it runs.
 */
export async function isResponder(
  user: string,
  responders: readonly string[],
  groupMembers: GroupMembers | undefined,
): Promise<boolean> {
  if (responders.includes(user)) return true;
  for (const group of responders.filter((r) => r.startsWith('S'))) {
    const members: string[] = (await groupMembers?.(group).catch((): string[] => [])) ?? [];
    if (members.includes(user)) return true;
  }
  return false;
}

/** The refusal for someone who may not press `action`, naming who may (etcd-doctor's own text). */
export async function authorise(
  action: Pick<RegisteredAction, 'access' | 'label'>,
  user: string,
  responders: readonly string[],
  groupMembers: GroupMembers | undefined,
): Promise<string | undefined> {
  if (action.access === 'anyone') return undefined;
  if (await isResponder(user, responders, groupMembers)) return undefined;
  const who = responders.length
    ? responders.map((r) => (r.startsWith('S') ? `<!subteam^${r}>` : `<@${r}>`)).join(', ')
    : 'nobody yet (the cluster lists no remediation.responders)';
  return `Only responders may press *${action.label}*: ${who}. Nothing was done; ask one of them.`;
}
