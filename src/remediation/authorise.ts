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

/**
 * The refusal for someone who may not press `action`: who may, or, where nobody may yet, how to
 * allow it (etcd-doctor's own text).
 */
export async function authorise(
  action: Pick<RegisteredAction, 'access' | 'label'>,
  user: string,
  cluster: { name: string; responders: readonly string[] },
  groupMembers: GroupMembers | undefined,
): Promise<string | undefined> {
  if (action.access === 'anyone') return undefined;
  const { responders } = cluster;
  if (await isResponder(user, responders, groupMembers)) return undefined;
  if (responders.length === 0)
    return `Only responders may press *${action.label}*, and cluster ${cluster.name} lists none, so nothing was done. To allow it, list Slack user ids (U…) or user-group ids (S…) under \`remediation.responders\` of cluster ${cluster.name} in the config.`;
  const who = responders.map((r) => (r.startsWith('S') ? `<!subteam^${r}>` : `<@${r}>`)).join(', ');
  return `Only responders may press *${action.label}*: ${who}. Nothing was done; ask one of them.`;
}
