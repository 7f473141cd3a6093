import { z } from 'zod';
import type { ClusterConfig } from '../../config/schema.js';
import { EtcdDoctorError } from '../../errors.js';
import { redactUrlCredentials } from '../../secret.js';
import { type ActionContext, done, failed, defineAction } from '../action.js';

type TicketsConfig = NonNullable<ClusterConfig['tickets']>;

interface Ticket {
  title: string;
  body: string;
}

/** Jira REST v2 "Create issue", GitHub REST "Create an issue", or one JSON POST to a webhook. */
export const openTicket = defineAction({
  id: 'open-ticket',
  label: 'Open a ticket',
  access: 'anyone',
  sideEffects: [
    'an issue in the configured tracker (Jira, GitHub, or a JSON webhook); nothing in the cluster',
  ],
  needsConfirmation: false,
  argsSchema: z.object({ again: z.literal('1').optional() }),
  describe(_args, s) {
    return [`Open a ticket with the diagnosis of ${s.cluster} and a link to this thread.`];
  },
  async run(args, ctx) {
    const tickets = ctx.cluster.tickets;
    if (!tickets) return failed(`cluster ${ctx.cluster.name} has no tickets: section in the config`);
    const diagnosis = ctx.snapshot.threadLink ?? ctx.planId;
    const existing = await ctx.state.ticketFor(diagnosis);
    if (existing && !args.again) {
      const again = await ctx.followUp('open-ticket', { again: '1' }, 'Open another ticket');
      return done('this diagnosis already has a ticket', [], {
        link: { label: 'the ticket', url: existing },
        buttons: [again],
      });
    }
    const ticket = ticketOf(ctx);
    if (ctx.dryRun) return done(`would open a ${tickets.kind} ticket "${ticket.title}"`);
    const url = await createTicket(tickets, ticket, ctx);
    await ctx.state.saveTicket(diagnosis, url);
    return done(`opened a ${tickets.kind} ticket`, [], { link: { label: url, url } });
  },
});

function ticketOf(ctx: ActionContext): Ticket {
  const s = ctx.snapshot;
  const title = `etcd-doctor: ${s.cluster}: ${s.rootCause ?? 'diagnosis'}${s.leader ? ` (leader ${s.leader})` : ''}`;
  const body = [
    `Opened by etcd-doctor for Slack user ${ctx.user}.`,
    s.threadLink ? `Thread: ${s.threadLink}` : undefined,
    '',
    s.reportText ?? '(the diagnosis text was not kept with this button)',
  ]
    .filter((l) => l !== undefined)
    .join('\n');
  return { title, body };
}

const TICKET_TIMEOUT_MS = 10_000;

async function createTicket(cfg: TicketsConfig, ticket: Ticket, ctx: ActionContext): Promise<string> {
  const secret = cfg.credentialEnv ? ctx.clients.credential(cfg.credentialEnv) : undefined;
  const base = cfg.url.replace(/\/+$/, '');
  if (cfg.kind === 'jira') {
    const res = await post(ctx, `${base}/rest/api/2/issue`, jiraAuth(secret), {
      fields: {
        project: { key: cfg.project ?? 'OPS' },
        summary: ticket.title,
        description: ticket.body,
        issuetype: { name: 'Bug' },
      },
    });
    const key = z.object({ key: z.string() }).parse(res).key;
    return `${base}/browse/${key}`;
  }
  if (cfg.kind === 'github') {
    if (!cfg.project) throw new Error('tickets.project must name the GitHub repository (owner/name)');
    const res = await post(
      ctx,
      `${base}/repos/${cfg.project}/issues`,
      { ...(secret ? { Authorization: `Bearer ${secret}` } : {}), Accept: 'application/vnd.github+json' },
      { title: ticket.title, body: ticket.body, labels: ['etcd-doctor'] },
    );
    return z.object({ html_url: z.string() }).parse(res).html_url;
  }
  const res = await post(ctx, base, secret ? { Authorization: `Bearer ${secret}` } : {}, {
    cluster: ctx.cluster.name,
    title: ticket.title,
    text: ticket.body,
    rootCause: ctx.snapshot.rootCause ?? null,
    thread: ctx.snapshot.threadLink ?? null,
    user: ctx.user,
    plan: ctx.planId,
  });
  const parsed = z.object({ url: z.string() }).safeParse(res);
  return parsed.success ? parsed.data.url : base;
}

/** `email:api-token` is Jira Cloud basic auth; anything else is a Data Center personal access token. */
function jiraAuth(secret: string | undefined): Record<string, string> {
  if (!secret) return {};
  return secret.includes(':')
    ? { Authorization: `Basic ${Buffer.from(secret).toString('base64')}` }
    : { Authorization: `Bearer ${secret}` };
}

async function post(
  ctx: ActionContext,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<unknown> {
  const res = await ctx.clients.fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TICKET_TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) {
    // The tracker's body stays in the worker log: it may echo the request, or anything else.
    ctx.logger.warn(
      { url: redactUrlCredentials(url), status: res.status, body: text.slice(0, 2000) },
      'the ticket tracker refused the issue',
    );
    throw new EtcdDoctorError(
      'action_failed',
      `the tracker at ${new URL(url).origin} answered HTTP ${res.status}; its answer is in the worker log`,
    );
  }
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}
