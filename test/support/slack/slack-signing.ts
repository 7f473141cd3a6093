/**
 * Build and sign requests the way Slack sends them to an HTTP-mode app (contract §1-§3).
 */
import { createHmac } from 'node:crypto';

/**
 * Bolt compares the content type with `===`: send exactly this, no `; charset=` (contract §0 item 1).
 */
export const SLACK_FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/**
 * `v0=` + hex(HMAC-SHA256(secret, `v0:${ts}:${body}`)), timestamp in Unix seconds (contract §1.1).
 * Sign the exact bytes you send.
 */
export function signSlackRequest(
  body: string,
  signingSecret: string,
  timestampSeconds: number,
): { 'x-slack-signature': string; 'x-slack-request-timestamp': string } {
  const ts = String(Math.trunc(timestampSeconds));
  const digest = createHmac('sha256', signingSecret).update(`v0:${ts}:${body}`).digest('hex');
  return { 'x-slack-signature': `v0=${digest}`, 'x-slack-request-timestamp': ts };
}

/**
 * Slash command fields (sample slash-command.fields.json). All strings on the wire;
 * `is_enterprise_install` is "true"/"false". `enterprise_*` exist on Enterprise Grid only.
 */
export interface SlashCommandFields {
  token: string;
  team_id: string;
  team_domain: string;
  enterprise_id: string;
  enterprise_name: string;
  channel_id: string;
  channel_name: string;
  user_id: string;
  user_name: string;
  command: string;
  text: string;
  api_app_id: string;
  is_enterprise_install: string;
  response_url: string;
  trigger_id: string;
}

/** A field set to `null` is left out of the body (e.g. to reproduce an older payload byte for byte). */
export type SlashCommandInput = { [K in keyof SlashCommandFields]?: SlashCommandFields[K] | null };

/**
 * Wire order: the docs examples (slash-command.docs-example.form.txt, .signed-example.form.txt) with
 * api_app_id and is_enterprise_install after `text`, where the Socket Mode sample places api_app_id.
 */
const DEFAULTS: SlashCommandFields = {
  token: 'verification-token',
  team_id: 'T111',
  team_domain: 'fake',
  enterprise_id: '',
  enterprise_name: '',
  channel_id: 'C111',
  channel_name: 'random',
  user_id: 'U111',
  user_name: 'testxyz',
  command: '/etcd',
  text: '',
  api_app_id: 'A111',
  is_enterprise_install: 'false',
  response_url: 'https://hooks.slack.com/commands/T111/111/xxx',
  trigger_id: '111.222.xxx',
};

/** Enterprise Grid only: omitted unless given. */
const GRID_ONLY = new Set<keyof SlashCommandFields>(['enterprise_id', 'enterprise_name']);

/**
 * An `application/x-www-form-urlencoded` slash command body. Unset fields take the defaults of
 * the Socket Mode sample (T111 / C111 / U111 / A111).
 */
export function slashCommandForm(fields: SlashCommandInput = {}): string {
  const form = new URLSearchParams();
  for (const key of Object.keys(DEFAULTS) as Array<keyof SlashCommandFields>) {
    const given = fields[key];
    if (given === null || (given === undefined && GRID_ONLY.has(key))) continue;
    form.append(key, given ?? DEFAULTS[key]);
  }
  return form.toString();
}

/** Interactivity body: `payload=` + URL-encoded JSON (contract §3.1). */
export function blockActionsForm(payload: object): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
