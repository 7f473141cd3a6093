import { randomBytes } from 'node:crypto';
import type { Redis } from '../clients/redis.js';
import { z } from 'zod';
import {
  type ActionId,
  isActionId,
  isChatButtonKind,
  type RemediationActionId,
} from '../contracts/action-id.js';
import type { RecordSigner } from './record-signer.js';

/**
 * A button carries a short reference, `{"v":1,"plan":"<id>"}`, never a command: what the button
 * would do (action, cluster, arguments) stays in Redis under that id, written by the worker that
 * rendered the report. A forged or stale value finds no plan.
 */
export interface Plan {
  v: 1;
  action: ActionId;
  cluster: string;
  args: Record<string, string>;
  label: string;
  /** Channel of the report the button sits on. */
  channel: string;
  createdAt: number;
  /** What the diagnosis knew when the button was made, and confirmation bindings (src/remediation/plan-context.ts). */
  context?: Record<string, string>;
}

/** A plan a remediation runs (not one of the chat side's own buttons). */
export type RemediationPlan = Plan & { action: RemediationActionId };

export function isRemediationPlan(plan: Plan): plan is RemediationPlan {
  return !isChatButtonKind(plan.action);
}

/**
 * A plan as loaded: `found` (signed by etcd-doctor, unchanged), `gone` (expired, or never made), or
 * `forged`: a record under that id that etcd-doctor did not sign as it is (written into Redis by
 * someone else, or changed there). `claimed` is what a forged record says it is, for the audit only.
 */
export type PlanLookup =
  | { status: 'found'; plan: Plan }
  | { status: 'gone' }
  | { status: 'forged'; why: string; claimed: { cluster: string; action: string } };

export interface PlanStore {
  save(plan: Omit<Plan, 'v'>): Promise<string>;
  load(id: string): Promise<PlanLookup>;
}

export const PLAN_ID = /^[A-Za-z0-9_-]{8,64}$/;

const planSchema = z.strictObject({
  v: z.literal(1),
  action: z.string().refine(isActionId, { error: 'unknown action' }),
  cluster: z.string().min(1),
  args: z.record(z.string(), z.string()),
  label: z.string(),
  channel: z.string().min(1),
  createdAt: z.number(),
  context: z.record(z.string(), z.string()).optional(),
});

/** Buttons outlive the report's usefulness after a week; then they say they expired. */
const PLAN_TTL_SECONDS = 7 * 24 * 3600;

/** A button's value: its plan's id (≤ 2000 characters in Block Kit; this is ~40), read back by bot/handle-action.ts. */
export function buttonValue(planId: string): string {
  return JSON.stringify({ v: 1, plan: planId });
}

/** What Redis holds under a plan's key: the plan's JSON text as signed, and its signature (record-signer.ts). */
const storedSchema = z.strictObject({ plan: z.string(), sig: z.string() });

/**
 * Plans under `<prefix>:state:plan:<id>`, each signed with the deployment's key when saved and
 * checked when loaded: a plan is only what a process holding REMEDIATION_SIGNING_KEY wrote.
 */
export function createPlanStore(redis: Redis, prefix: string, signer: RecordSigner): PlanStore {
  const key = (id: string) => `${prefix}:state:plan:${id}`;
  return {
    async save(plan) {
      const id = randomBytes(12).toString('base64url');
      const text = JSON.stringify({ v: 1, ...plan });
      const stored = JSON.stringify({ plan: text, sig: signer.sign('plan', id, text) });
      await redis.set(key(id), stored, 'EX', PLAN_TTL_SECONDS);
      return id;
    },
    async load(id) {
      if (!PLAN_ID.test(id)) return { status: 'gone' };
      const raw = await redis.get(key(id));
      if (raw === null) return { status: 'gone' };
      return checkPlan(id, raw, signer);
    },
  };
}

/** The stored text as a plan, once its signature holds; the signature is checked before the plan is read. */
function checkPlan(id: string, raw: string, signer: RecordSigner): PlanLookup {
  const stored = storedSchema.safeParse(parseJson(raw));
  const text = stored.success ? stored.data.plan : raw;
  const verdict = signer.verify('plan', id, text, stored.success ? stored.data.sig : undefined);
  if (verdict !== 'ok') {
    const why =
      verdict === 'unsigned'
        ? 'it carries no signature (written into Redis by something other than etcd-doctor, or before plans were signed)'
        : 'its signature does not match its content (changed in Redis after etcd-doctor wrote it, or signed with another key)';
    return { status: 'forged', why, claimed: claimedBy(stored.success ? stored.data.plan : raw) };
  }
  const parsed = planSchema.safeParse(parseJson(text));
  // Signed by us but not a plan this version reads: as good as expired.
  if (!parsed.success) return { status: 'gone' };
  const { context, ...rest } = parsed.data;
  return {
    status: 'found',
    plan: { ...rest, action: parsed.data.action as ActionId, ...(context ? { context } : {}) },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a record says of itself (cluster, action), cut short: it is only written to the audit trail. */
function claimedBy(text: string): { cluster: string; action: string } {
  const value = parseJson(text);
  const field = (name: string) => {
    const v =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
    return typeof v === 'string' ? v.slice(0, 64) : 'unknown';
  };
  return { cluster: field('cluster'), action: field('action') };
}
