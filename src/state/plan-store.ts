import { randomBytes } from 'node:crypto';
import type { Redis } from '../clients/redis.js';
import { z } from 'zod';
import { type ActionId, isActionId } from '../contracts/action-id.js';

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

export interface PlanStore {
  save(plan: Omit<Plan, 'v'>): Promise<string>;
  load(id: string): Promise<Plan | undefined>;
}

export const PLAN_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** The button value (≤ 2000 characters in Block Kit; this is ~40). */
export const buttonValueSchema = z.strictObject({ v: z.literal(1), plan: z.string().regex(PLAN_ID) });

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

export function buttonValue(planId: string): string {
  return JSON.stringify({ v: 1, plan: planId });
}

/** The plan id in a button value, or undefined when the value is not one of ours. */
export function parseButtonValue(value: string): string | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return undefined;
  }
  const parsed = buttonValueSchema.safeParse(raw);
  return parsed.success ? parsed.data.plan : undefined;
}

export function createPlanStore(redis: Redis, prefix: string): PlanStore {
  const key = (id: string) => `${prefix}:state:plan:${id}`;
  return {
    async save(plan) {
      const id = randomBytes(12).toString('base64url');
      await redis.set(key(id), JSON.stringify({ v: 1, ...plan }), 'EX', PLAN_TTL_SECONDS);
      return id;
    },
    async load(id) {
      if (!PLAN_ID.test(id)) return undefined;
      const raw = await redis.get(key(id));
      if (raw === null) return undefined;
      const parsed = planSchema.safeParse(JSON.parse(raw));
      if (!parsed.success) return undefined;
      const { context, ...rest } = parsed.data;
      return { ...rest, action: parsed.data.action as ActionId, ...(context ? { context } : {}) };
    },
  };
}
