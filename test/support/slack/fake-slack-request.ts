import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord } from './fake-slack-blocks.js';

/** A Web API request after decoding, before any method logic. */
export interface ParsedRequest {
  params: Record<string, unknown>;
  /** The token Slack would accept: the Bearer header, else a `token` form/query field (never a JSON field). */
  token: string | undefined;
  headerToken: string | undefined;
  /** JSON-carrying fields (blocks, view, ...) that were strings but not valid JSON; left as sent in `params`. */
  badJson: ReadonlySet<string>;
}

/**
 * Slack's generic request errors (the list every docs.slack.dev method page ends with). Not in the local
 * contract; named here so a malformed request fails the way Slack fails it.
 */
export type RequestError = 'invalid_json' | 'json_not_object' | 'invalid_post_type' | 'invalid_form_data';

export type ParseResult = { ok: true; value: ParsedRequest } | { ok: false; error: RequestError };

/** Fields WebClient JSON-stringifies into one form field (contract §4.2); decoded back for the fake. */
const JSON_FIELDS = ['blocks', 'attachments', 'view', 'files', 'metadata'] as const;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

function bearer(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

/** Media type without parameters, lower-cased: `application/json; charset=utf-8` -> `application/json`. */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Decodes query + body. Contract §4.2: Slack takes form-encoded or JSON bodies; WebClient sends form
 * bodies (multipart when a Buffer is present). For JSON bodies the token must be in the Authorization
 * header ("To make use of sending JSON on write operations, you must provide your token value using an
 * Authorization HTTP header", docs.slack.dev/changelog/2017-10-keeping-up-with-the-jsons).
 */
export async function parseApiRequest(req: IncomingMessage, url: URL, raw: Buffer): Promise<ParseResult> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const type = mediaType(req);
  const body = await parseBody(type, req, raw);
  if (!body.ok) return body;
  Object.assign(params, body.value);
  const headerToken = bearer(req);
  const fieldToken = type === 'application/json' ? undefined : params.token;
  const token = headerToken ?? (typeof fieldToken === 'string' && fieldToken !== '' ? fieldToken : undefined);
  const badJson = new Set<string>();
  return { ok: true, value: { params: decodeJsonFields(params, badJson), token, headerToken, badJson } };
}

type BodyResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: RequestError };

async function parseBody(type: string, req: IncomingMessage, raw: Buffer): Promise<BodyResult> {
  if (raw.length === 0) return { ok: true, value: {} };
  if (type === 'application/x-www-form-urlencoded' || type === 'text/plain' || type === '') {
    return { ok: true, value: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) };
  }
  if (type === 'application/json') return parseJsonBody(raw.toString('utf8'));
  if (type === 'multipart/form-data') {
    const form = await parseMultipart(req, raw);
    if (form === undefined) return { ok: false, error: 'invalid_form_data' };
    const value: Record<string, unknown> = {};
    for (const [key, entry] of form) value[key] = typeof entry === 'string' ? entry : await entry.text();
    return { ok: true, value };
  }
  return { ok: false, error: 'invalid_post_type' };
}

function parseJsonBody(text: string): BodyResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'invalid_json' };
  }
  return isRecord(value) ? { ok: true, value } : { ok: false, error: 'json_not_object' };
}

/** Multipart via the WHATWG Request parser that ships with Node (undici). */
export async function parseMultipart(req: IncomingMessage, raw: Buffer): Promise<FormData | undefined> {
  try {
    const request = new Request('http://fake.invalid/', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: new Uint8Array(raw),
    });
    return await request.formData();
  } catch {
    return undefined;
  }
}

function decodeJsonFields(params: Record<string, unknown>, badJson: Set<string>): Record<string, unknown> {
  const out = { ...params };
  for (const key of JSON_FIELDS) {
    const value = out[key];
    if (typeof value !== 'string') continue;
    try {
      out[key] = JSON.parse(value);
    } catch {
      badJson.add(key);
    }
  }
  return out;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // Slack answers `application/json; charset=utf-8` (bolt-python mock, sample auth.test source).
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}
