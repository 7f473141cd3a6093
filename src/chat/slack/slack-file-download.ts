import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EtcdDoctorError } from '../../errors.js';
import { ChatDeliveryError, type FetchedFile, type FetchFileOptions, fileTooLarge } from '../adapter.js';

/** The fields of Slack's file object (files.info `file`) a download needs. */
export interface SlackFileInfo {
  name?: string;
  size?: number;
  mimetype?: string;
  url_private_download?: string;
  url_private?: string;
}

export interface SlackFileDownloadDeps {
  botToken: string;
  /** files.info through the adapter's WebClient (counted on /metrics; failures as ChatDeliveryError). */
  info(fileId: string): Promise<SlackFileInfo | undefined>;
  /** The Web API base (SLACK_API_URL, default https://slack.com/api/): downloads go to its host only. */
  apiUrl: string;
  timeoutMs: number;
}

const MAX_REDIRECTS = 3;
const SCOPE_HINT =
  'the app needs the `files:read` scope (add it in the app manifest, reinstall the app, then share the file again)';

const refuse = (message: string) => new EtcdDoctorError('command_invalid', message);

/**
 * Whether a download URL belongs to Slack: same scheme and port as the Web API base, on its host or
 * a subdomain of it (https://slack.com/api/ -> files.slack.com; the test fake's 127.0.0.1:PORT -> only
 * itself). The bot token is sent with the request, so nothing else may receive it.
 */
export function isSlackFileUrl(apiUrl: string, target: string): boolean {
  let api: URL;
  let url: URL;
  try {
    api = new URL(apiUrl);
    url = new URL(target);
  } catch {
    return false;
  }
  if (url.protocol !== api.protocol || url.port !== api.port || url.username || url.password) return false;
  return url.hostname === api.hostname || url.hostname.endsWith(`.${api.hostname}`);
}

/** GET with the bot token, following at most MAX_REDIRECTS redirects, each of them to Slack only. */
async function getFile(deps: SlackFileDownloadDeps, first: string, signal: AbortSignal): Promise<Response> {
  let url = first;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    if (!isSlackFileUrl(deps.apiUrl, url))
      throw refuse(
        `Slack sent the file's download to ${new URL(url).host}, which is not Slack; nothing was read.`,
      );
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${deps.botToken}` },
      redirect: 'manual',
      signal,
    }).catch((err: unknown) => {
      throw new ChatDeliveryError(`Slack file download failed: ${String(err)}`, {
        transient: true,
        cause: err,
      });
    });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return res;
    await res.body?.cancel();
    url = new URL(location, url).toString();
  }
  throw refuse('Slack redirected the file download too many times; nothing was read.');
}

function checkAnswer(res: Response, name: string, mimetype: string | undefined): void {
  if (res.status === 401 || res.status === 403)
    throw refuse(`Slack refused to hand over ${name}: ${SCOPE_HINT}.`);
  if (res.status === 404 || res.status === 410)
    throw refuse(`${name} is no longer in Slack; share it again.`);
  if (res.status >= 500 || res.status === 429)
    throw new ChatDeliveryError(`Slack file download failed: HTTP ${res.status}`, { transient: true });
  if (res.status !== 200 || !res.body)
    throw refuse(`Slack answered HTTP ${res.status} for ${name}; share it again.`);
  // Without a valid token Slack answers its sign-in page (HTTP 200) instead of the file.
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/html') && !(mimetype ?? '').startsWith('text/html'))
    throw refuse(`Slack answered a web page instead of ${name}: ${SCOPE_HINT}.`);
}

/** Counts bytes and fails the stream once more than `maxBytes` have passed. */
function byteLimit(maxBytes: number, onExceed: () => Error): Transform & { bytes: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      counter.bytes += chunk.length;
      if (counter.bytes > maxBytes) done(onExceed());
      else done(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}

/**
 * files.info, then the authenticated download of `url_private_download` into `dir` (mode 0600).
 * Refuses before downloading when Slack says the file is over `maxBytes`, and stops a download that
 * goes over it anyway. Refusals are EtcdDoctorError (the message is the user's answer); Slack
 * being unavailable is a transient ChatDeliveryError, so the queue tries again.
 */
export async function downloadSlackFile(
  deps: SlackFileDownloadDeps,
  fileId: string,
  opts: FetchFileOptions,
): Promise<FetchedFile> {
  const file = await deps.info(fileId).catch((err: unknown) => {
    const error = err instanceof ChatDeliveryError ? err.message : '';
    if (/file_not_found|file_deleted/.test(error))
      throw refuse('That file is no longer in Slack; share it again.');
    if (/missing_scope|not_allowed_token_type/.test(error))
      throw refuse(`Slack would not describe the file: ${SCOPE_HINT}.`);
    throw err;
  });
  const name = file?.name?.trim() || fileId;
  const url = file?.url_private_download ?? file?.url_private;
  if (!url)
    throw refuse(
      `Slack gave no download for ${name} (an external or deleted file?); upload the file itself.`,
    );
  if (typeof file?.size === 'number' && file.size > opts.maxBytes)
    throw fileTooLarge(name, file.size, opts.maxBytes);
  const signal = AbortSignal.any([
    AbortSignal.timeout(deps.timeoutMs),
    ...(opts.signal ? [opts.signal] : []),
  ]);
  const res = await getFile(deps, url, signal);
  try {
    checkAnswer(res, name, file?.mimetype);
  } catch (err) {
    await res.body?.cancel().catch(() => undefined);
    throw err;
  }
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > opts.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw fileTooLarge(name, declared, opts.maxBytes);
  }
  // The analysis names a member after its log file: keep the name (its safe characters) in a directory of its own.
  const own = join(opts.dir, fileId);
  await mkdir(own, { mode: 0o700 });
  const path = join(
    own,
    name
      .replace(/[^\w.-]+/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 100) || 'file',
  );
  const counter = byteLimit(opts.maxBytes, () => fileTooLarge(name, undefined, opts.maxBytes));
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  await pipeline(body, counter, createWriteStream(path, { mode: 0o600, flags: 'wx' }), { signal });
  return { path, name, bytes: counter.bytes };
}
