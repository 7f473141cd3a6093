import type { z } from 'zod';
import type { ChatAdapter } from '../chat/adapter.js';
import type { EtcdClients } from '../clients/etcd-clients.js';
import type { KubernetesClients } from '../clients/kubernetes.js';
import type { ClusterConfig } from '../config/schema.js';
import type { ActionId } from '../diagnosis/finding.js';
import type { Logger } from '../logger.js';
import type { ViewButton } from '../report/chat-view.js';
import type { AuditLog } from '../state/audit-log.js';
import type { RemediationState } from '../state/remediation-state.js';
import type { RemediationSettings } from './settings.js';

/**
 * The contract of one remediation action (src/remediation/actions/, one file each). The click path
 * (handle-click.ts) owns authorisation, confirmation, run-once and audit; an action only says
 * what it touches, how to describe its plan, and how to run it.
 */
export interface RemediationAction<A> {
  id: ActionId;
  label: string;
  /** Who may press it: `anyone` in the channel (read-only), or the cluster's `remediation.responders`. */
  access: 'anyone' | 'responders';
  /** What it touches, in words (docs/remediation.md and the confirmation show these). Empty: it changes nothing. */
  sideEffects: readonly string[];
  /** Ask for a second, explicit "Run it" before running (every action that changes a cluster). */
  needsConfirmation: boolean;
  /**
   * Variants the confirmation offers instead of one "Run it": each a button of its own whose `args`
   * are added to the plan's (e.g. promote by itself, or leave it to a Promote button). Runs once,
   * whichever is pressed.
   */
  choices?: readonly ConfirmChoice[];
  /** Validates the plan's stored arguments; a plan that does not parse never runs. */
  argsSchema: z.ZodType<A>;
  /**
   * The exact plan, in lines, as the confirmation shows it. From the diagnosis snapshot and the
   * cluster's settings, no I/O.
   */
  describe(args: A, snapshot: PlanSnapshot, settings: RemediationSettings): string[];
  /**
   * Why the action cannot work on this cluster as it is configured (no I/O): its button is then not
   * offered, and the report says why once, instead of a refusal after a confirmation.
   */
  unavailable?(cluster: ClusterConfig, settings: RemediationSettings): string | undefined;
  run(args: A, ctx: ActionContext): Promise<ActionOutcome>;
  /**
   * What to check when a run of it was interrupted (its worker died mid-run and the job came back):
   * the half-done states it can leave and how to finish each by hand. Not run again by itself.
   */
  interrupted?(args: A): string;
}

/** One variant of a confirmation ("Run it, promote when caught up"). */
export interface ConfirmChoice {
  label: string;
  args: Record<string, string>;
}

/** What the diagnosis knew when the button was made (stored with the plan as `context`). */
export interface PlanSnapshot {
  cluster: string;
  /** The root cause of that diagnosis, e.g. `slow-disk`. */
  rootCause: string | undefined;
  leader: string | undefined;
  /** Member names in report order, `name=reachable|down`. */
  members: Array<{
    name: string;
    reachable: boolean;
    dbSizeBytes: number | undefined;
    /** Status.dbSizeInUse: what a defragmentation would keep (older plans lack it). */
    dbSizeInUseBytes?: number | undefined;
  }>;
  /** The report as text (for tickets). */
  reportText: string | undefined;
  /** Link to the report's thread. */
  threadLink: string | undefined;
}

/** Lazy clients: an action that only needs etcd never loads a kubeconfig. */
export interface ActionClients {
  etcd(): Promise<EtcdClients>;
  kubernetes(): Promise<KubernetesClients>;
  fetch: typeof fetch;
  /** A member's /metrics page as text, with the cluster's TLS files (replace-member's second view). */
  metrics(url: string, signal: AbortSignal): Promise<string>;
  /** The secret from the named env var (tickets.credentialEnv), read by the composition root. */
  credential(envName: string): string | undefined;
  /** Queue a scan of what fills this cluster's etcd, answered in `thread` (space). */
  space(thread: string | undefined): Promise<void>;
}

/** What a run on a cluster is given, a button's (remediation-job.ts) or a maintenance window's. */
export interface ClusterRunDeps {
  chat: ChatAdapter;
  state: RemediationState;
  audit: Pick<AuditLog, 'append'>;
  cluster(name: string): ClusterConfig;
  /** Clients for one run; closed when it ends. */
  clientsFor(cluster: ClusterConfig): ActionClients & { close(): Promise<void> };
  settings: RemediationSettings;
  logger: Logger;
}

export interface ActionContext {
  cluster: ClusterConfig;
  clients: ActionClients;
  state: RemediationState;
  settings: RemediationSettings;
  /** Plan, report nothing: every step that would change something says what it would do. */
  dryRun: boolean;
  /** The worker's log (the job's fields on every line): for what must not reach the chat. */
  logger: Logger;
  /**
   * One line per step, shown live in the thread. It never waits for the chat (resolves at once);
   * the edits are sent in order, and the outcome is posted after the last of them.
   */
  progress(line: string): Promise<void>;
  /**
   * A message of its own in the thread (what a person must do by hand, to copy from), attributed to
   * the presser. A failed post is logged, never thrown: the action goes on.
   */
  post(lines: string[]): Promise<void>;
  snapshot: PlanSnapshot;
  planId: string;
  user: string;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** A fresh plan for a follow-up button (e.g. "Open another ticket"). */
  followUp(action: ActionId, args: Record<string, string>, label: string): Promise<ViewButton>;
  /**
   * Await right before each step that changes something (`next` names it). It asks Redis whether the
   * cluster's remediation lock is still ours and rejects with RemediationAborted when it lapsed:
   * another action could be running, so nothing more may change. Read-only actions hold no lock
   * and never stop here.
   */
  safePoint(next: string): Promise<void>;
}

/** The run stopped at a safe point because its lock lapsed; nothing after `before` was done. */
export class RemediationAborted extends Error {
  readonly before: string;
  readonly why: string;
  /** `lock`: the cluster's remediation lock lapsed; `handed-over`: the run was given to another worker. */
  readonly reason: 'lock' | 'handed-over';

  constructor(before: string, why: string, reason: 'lock' | 'handed-over' = 'lock') {
    super(`stopped before ${before}: ${why}`);
    this.name = 'RemediationAborted';
    this.before = before;
    this.why = why;
    this.reason = reason;
  }
}

export interface ActionOutcome {
  status: 'done' | 'refused' | 'failed';
  /** One line: what happened ("defragmented 3 members; 48 MiB returned"). */
  summary: string;
  lines: string[];
  link?: { label: string; url: string };
  buttons?: ViewButton[];
}

/** An action with its argument type erased, for the registry. */
export interface RegisteredAction {
  id: ActionId;
  label: string;
  access: 'anyone' | 'responders';
  sideEffects: readonly string[];
  needsConfirmation: boolean;
  choices: readonly ConfirmChoice[] | undefined;
  unavailable(cluster: ClusterConfig, settings: RemediationSettings): string | undefined;
  parse(raw: Record<string, string>):
    | {
        ok: true;
        describe(s: PlanSnapshot, settings: RemediationSettings): string[];
        run(ctx: ActionContext): Promise<ActionOutcome>;
        interrupted(): string | undefined;
      }
    | { ok: false; error: string };
}

/**
 * Defines a remediation action (registers nothing: the list in actions/index.ts is the registry):
 * its args are parsed once, then it describes its plan and runs.
 */
export function defineAction<A>(action: RemediationAction<A>): RegisteredAction {
  return {
    id: action.id,
    label: action.label,
    access: action.access,
    sideEffects: action.sideEffects,
    needsConfirmation: action.needsConfirmation,
    choices: action.choices,
    unavailable: (cluster, settings) => action.unavailable?.(cluster, settings),
    parse(raw) {
      const parsed = action.argsSchema.safeParse(raw);
      if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join('; ') };
      const args = parsed.data;
      return {
        ok: true,
        describe: (s, settings) => action.describe(args, s, settings),
        run: (ctx) => action.run(args, ctx),
        interrupted: () => action.interrupted?.(args),
      };
    },
  };
}

export const done = (
  summary: string,
  lines: string[] = [],
  extra: Partial<ActionOutcome> = {},
): ActionOutcome => ({
  status: 'done',
  summary,
  lines,
  ...extra,
});
export const refused = (summary: string, lines: string[] = []): ActionOutcome => ({
  status: 'refused',
  summary,
  lines,
});
export const failed = (summary: string, lines: string[] = []): ActionOutcome => ({
  status: 'failed',
  summary,
  lines,
});
