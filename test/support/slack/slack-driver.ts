/**
 * Plays Slack's part toward a running Bolt receiver: signed slash commands and button presses over
 * HTTP, exactly as Slack sends them (shared/reference/slack-contract.md §1-§3), and helpers to read
 * what the fake Web API recorded.
 */
import type { SlackFileObject } from './fake-slack-files.js';
import {
  blockActionsForm,
  SLACK_FORM_CONTENT_TYPE,
  signSlackRequest,
  type SlashCommandInput,
  slashCommandForm,
} from './slack-signing.js';

export const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

export interface SlackResponse {
  status: number;
  text: string;
  /** Wall time from sending to the full response. */
  ms: number;
}

export async function postSigned(
  url: string,
  body: string,
  opts: { contentType?: string; secret?: string; timestampSeconds?: number; signature?: string } = {},
): Promise<SlackResponse> {
  const signed = signSlackRequest(
    body,
    opts.secret ?? SIGNING_SECRET,
    opts.timestampSeconds ?? Date.now() / 1000,
  );
  const headers = {
    'content-type': opts.contentType ?? SLACK_FORM_CONTENT_TYPE,
    ...signed,
    ...(opts.signature ? { 'x-slack-signature': opts.signature } : {}),
  };
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - started };
}

/** A file dropped into a DM (`message.im`, subtype file_share), as Slack's HTTP events deliver it. */
export interface FileShareInput {
  channel: string;
  user: string;
  /** The message's ts: the thread the answer goes into. */
  ts: string;
  file: SlackFileObject;
  eventId: string;
}

/** A signed file_share event to the events URL; resolves with Bolt's answer (200 when acked). */
export function sendFileShare(url: string, share: FileShareInput): Promise<SlackResponse> {
  const body = JSON.stringify({
    token: 'verification-token',
    team_id: 'T111',
    api_app_id: 'A111',
    event: {
      type: 'message',
      subtype: 'file_share',
      channel: share.channel,
      channel_type: 'im',
      user: share.user,
      text: '',
      ts: share.ts,
      event_ts: share.ts,
      files: [share.file],
    },
    type: 'event_callback',
    event_id: share.eventId,
    event_time: Math.floor(Date.now() / 1000),
  });
  return postSigned(url, body, { contentType: 'application/json' });
}

/** A signed `/etcd <text>`; resolves with Bolt's answer (the ack body). */
export function sendSlashCommand(url: string, fields: SlashCommandInput): Promise<SlackResponse> {
  return postSigned(url, slashCommandForm({ command: '/etcd', ...fields }));
}

export interface BlockActionInput {
  user: string;
  channel: string;
  messageTs: string;
  actionId: string;
  value: string;
  label: string;
}

/** A `block_actions` payload for a button press, shaped like sample block-actions.bot-message-button.json. */
export function blockActionPayload(a: BlockActionInput): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: { id: a.user, username: 'tester', name: 'tester', team_id: 'T111' },
    api_app_id: 'A111',
    token: 'verification-token',
    container: { type: 'message', message_ts: a.messageTs, channel_id: a.channel, is_ephemeral: false },
    trigger_id: '111.222.xxx',
    team: { id: 'T111', domain: 'fake' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: a.channel, name: 'random' },
    message: { type: 'message', ts: a.messageTs, text: '', bot_id: 'BZYBOTHED' },
    state: { values: {} },
    response_url: 'http://127.0.0.1:9/response',
    actions: [
      {
        action_id: a.actionId,
        block_id: 'b1',
        text: { type: 'plain_text', text: a.label },
        value: a.value,
        type: 'button',
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

export function sendBlockAction(url: string, a: BlockActionInput): Promise<SlackResponse> {
  return postSigned(url, blockActionsForm(blockActionPayload(a)));
}

interface ButtonFound {
  actionId: string;
  value: string;
  label: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** mrkdwn as a reader sees it: Slack shows `&lt;` as `<` (its three escapes: &amp; &lt; &gt;). */
export function shown(mrkdwn: string): string {
  return mrkdwn.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Every text in a list of blocks, one per line, as sent (escaped). */
export function blocksText(blocks: unknown): string {
  if (!Array.isArray(blocks)) return '';
  const out: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isRecord(node)) return;
    if (typeof node.text === 'string') out.push(node.text);
    for (const value of Object.values(node)) if (typeof value === 'object') visit(value);
  };
  visit(blocks);
  return out.join('\n');
}

export function buttonsIn(blocks: unknown): ButtonFound[] {
  if (!Array.isArray(blocks)) return [];
  return blocks
    .filter(isRecord)
    .flatMap((block) =>
      Array.isArray(block.elements)
        ? block.elements
            .filter(isRecord)
            .flatMap((e) =>
              e.type === 'button' &&
              typeof e.action_id === 'string' &&
              typeof e.value === 'string' &&
              isRecord(e.text)
                ? [{ actionId: e.action_id, value: e.value, label: String(e.text.text) }]
                : [],
            )
        : [],
    );
}

/** A message as the user reads it: its text and its blocks' texts, escapes shown. */
export function messageText(m: { text: string; blocks?: unknown }): string {
  return shown(`${m.text}\n${blocksText(m.blocks)}`);
}

/** An ack body (Bolt's answer to a slash command) as the user reads it; '' for an empty ack. */
export function ackText(res: { text: string }): string {
  if (res.text === '') return '';
  const body = JSON.parse(res.text) as { text?: string; blocks?: unknown };
  return shown(`${body.text ?? ''}\n${blocksText(body.blocks)}`);
}
