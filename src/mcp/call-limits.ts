import type { RateLimiter } from '../state/rate-limit.js';

/**
 * How many tool calls /mcp takes. A tool call probes every member of a cluster (etcd_diagnose
 * also Kubernetes and /metrics twice), or reads a must-gather: one POST holding a batch of twenty
 * ran twenty diagnoses at once. Four at once per process and thirty a minute are far above what an
 * assistant triaging one incident asks (inference; the chat allows five diagnoses a minute a person).
 */
export interface McpCallLimits {
  concurrent: number;
  perMinute: number;
}

export const DEFAULT_MCP_CALL_LIMITS: McpCallLimits = { concurrent: 4, perMinute: 30 };

const WINDOW_MS = 60_000;
const RATE_KEY = 'mcp:calls';

export type Admission =
  | { ok: true; release: () => void }
  | { ok: false; message: string; retryAfterS: number };

/** Admits `calls` tool calls (one POST's), or says why not and when to retry. */
export interface CallGate {
  admit(calls: number): Promise<Admission>;
}

export function createCallGate(limiter: RateLimiter, limits: McpCallLimits): CallGate {
  let running = 0;
  return {
    async admit(calls) {
      if (calls === 0) return { ok: true, release: () => undefined };
      if (running + calls > limits.concurrent)
        return {
          ok: false,
          retryAfterS: 1,
          message: `too many tool calls at once: this server runs at most ${limits.concurrent} (${running} running, ${calls} asked); send them one by one`,
        };
      // Taken now, in the same turn as the check: the rate limit below awaits Redis, and POSTs that
      // arrive meanwhile must see these calls as running (5 parallel POSTs of 4 all passed the check
      // under a limit of 4 while each still waited for its count).
      running += calls;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        running -= calls;
      };
      const limited = await takeRate(limiter, limits, calls);
      if (limited) {
        release();
        return limited;
      }
      return { ok: true, release };
    },
  };
}

/** One count per call in the per-minute window shared by every replica; the refusal, or undefined. */
async function takeRate(
  limiter: RateLimiter,
  limits: McpCallLimits,
  calls: number,
): Promise<Extract<Admission, { ok: false }> | undefined> {
  for (let i = 0; i < calls; i++) {
    // The chat's fixed-window counter; Redis slow or down lets calls through (state/rate-limit.ts).
    const taken = await limiter.take(RATE_KEY, limits.perMinute, WINDOW_MS);
    if (!taken.ok) {
      const retryAfterS = Math.ceil(taken.retryAfterMs / 1000);
      return {
        ok: false,
        retryAfterS,
        message: `${limits.perMinute} tool calls in the last minute, the limit of this server; try again in ${retryAfterS} s`,
      };
    }
  }
  return undefined;
}

/** The `tools/call` requests in a JSON-RPC body (one message or a batch). */
export function toolCallsIn(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call',
  ).length;
}
