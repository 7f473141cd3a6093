import type { ApiserverLists, FlowDispatch, ListsWindow, ResourceLists } from './apiserver-lists.js';

/**
 * What the apiserver listed and dispatched between two scrapes of its /metrics `seconds` apart: each
 * counter's increase, as metrics-window.ts does for etcd's. A series missing from the earlier page
 * had not counted yet (client_golang creates it on its first increment): it counts from 0. Two pages
 * with different start times, or a counter that went back, are no window (`reset`): the apiserver
 * restarted, or another apiserver behind the same address answered the second GET.
 */
export function compareLists(before: ApiserverLists, after: ApiserverLists, seconds: number): ListsWindow {
  const none: ListsWindow = { seconds, reset: true, resources: [], flows: [] };
  if (
    before.startedAtSeconds !== undefined &&
    after.startedAtSeconds !== undefined &&
    before.startedAtSeconds !== after.startedAtSeconds
  )
    return none;
  const earlierResource = new Map(before.resources.map((r) => [r.resource, r]));
  const earlierFlow = new Map((before.flows ?? []).map((f) => [flowKey(f), f]));
  let wentBack = false;
  const increase = (a: number | undefined, b: number | undefined): number | undefined => {
    if (b === undefined) return undefined;
    if (b < (a ?? 0)) wentBack = true;
    return Math.max(0, b - (a ?? 0));
  };
  const resources = after.resources.map((r): ResourceLists => {
    const a = earlierResource.get(r.resource);
    const listsByScope: Record<string, number> = {};
    for (const [scope, n] of Object.entries(r.listsByScope))
      listsByScope[scope] = increase(a?.listsByScope[scope], n) ?? 0;
    return {
      resource: r.resource,
      listsByScope,
      fromStorage: increase(a?.fromStorage, r.fromStorage),
      fetchedObjects: increase(a?.fetchedObjects, r.fetchedObjects),
      responseBytes: increase(a?.responseBytes, r.responseBytes),
      responses: increase(a?.responses, r.responses),
    };
  });
  const flows = (after.flows ?? []).map((f): FlowDispatch => {
    const a = earlierFlow.get(flowKey(f));
    const rejected: Record<string, number> = {};
    for (const [reason, n] of Object.entries(f.rejected))
      rejected[reason] = increase(a?.rejected[reason], n) ?? 0;
    return {
      flowSchema: f.flowSchema,
      priorityLevel: f.priorityLevel,
      dispatched: increase(a?.dispatched, f.dispatched) ?? 0,
      rejected,
      inQueue: f.inQueue,
    };
  });
  if (wentBack) return none;
  return { seconds, reset: false, resources, flows };
}

function flowKey(f: FlowDispatch): string {
  return `${f.flowSchema}\u0000${f.priorityLevel}`;
}
