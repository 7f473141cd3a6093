/**
 * Files people share with the app, as the fake workspace holds them: the file object of
 * docs.slack.dev/reference/objects/file-object (id, name, title, mimetype, filetype, size, mode,
 * url_private, url_private_download), `files.info` (scope files:read; `file_not_found` for an
 * unknown id), and the download of `url_private_download`, which needs
 * `Authorization: Bearer <token>` with a bot or user token (Slack: "url_private and
 * url_private_download require an authorization header with a token that has files:read").
 * Without it the fake answers 403, as the brief's contract for this fake says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface SharedFileInput {
  name: string;
  content: string | Buffer;
  mimetype?: string;
  /** The `size` files.info and events report, when a test wants it to differ from the bytes. */
  size?: number;
  user?: string;
  /** Send the bytes chunked, without Content-Length (the download cannot know the size up front). */
  chunked?: boolean;
  /** Send this many bytes, then nothing more until the fake closes: a download that hangs mid-way. */
  hangAfterBytes?: number;
}

/** A file object as events and files.info carry it. */
export interface SlackFileObject {
  id: string;
  created: number;
  timestamp: number;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  size: number;
  mode: 'hosted';
  is_external: false;
  is_public: false;
  url_private: string;
  url_private_download: string;
  permalink: string;
}

export interface RecordedDownload {
  fileId: string;
  /** The bearer token sent, if any. */
  token: string | undefined;
  status: number;
}

interface Stored {
  file: SlackFileObject;
  bytes: Buffer;
  chunked: boolean;
  hangAfterBytes?: number;
  redirect?: string;
}

type ApiResult = Record<string, unknown>;

export class FakeSharedFiles {
  readonly #files = new Map<string, Stored>();
  readonly #downloads: RecordedDownload[] = [];
  private readonly teamId: string;
  private readonly origin: () => string;
  private readonly mintId: (prefix: string) => string;

  constructor(opts: { teamId: string; origin: () => string; mintId: (prefix: string) => string }) {
    this.teamId = opts.teamId;
    this.origin = opts.origin;
    this.mintId = opts.mintId;
  }

  share(input: SharedFileInput): SlackFileObject {
    const id = this.mintId('F');
    const bytes = Buffer.isBuffer(input.content) ? input.content : Buffer.from(input.content, 'utf8');
    const now = Math.floor(Date.now() / 1000);
    const path = `${this.teamId}-${id}`;
    const name = encodeURIComponent(input.name);
    const file: SlackFileObject = {
      id,
      created: now,
      timestamp: now,
      name: input.name,
      title: input.name,
      mimetype: input.mimetype ?? 'text/plain',
      filetype: input.name.split('.').pop() ?? 'text',
      pretty_type: 'Plain Text',
      user: input.user ?? 'U111',
      size: input.size ?? bytes.length,
      mode: 'hosted',
      is_external: false,
      is_public: false,
      url_private: `${this.origin()}/files-pri/${path}/${name}`,
      url_private_download: `${this.origin()}/files-pri/${path}/download/${name}`,
      permalink: `https://fake-workspace.slack.com/files/U111/${id}/${name}`,
    };
    this.#files.set(id, {
      file,
      bytes,
      chunked: input.chunked ?? false,
      ...(input.hangAfterBytes !== undefined ? { hangAfterBytes: input.hangAfterBytes } : {}),
    });
    return { ...file };
  }

  /** The next download of this file answers a redirect to `location` instead of the bytes. */
  redirect(fileId: string, location: string): void {
    const stored = this.#files.get(fileId);
    if (stored) stored.redirect = location;
  }

  downloads(): RecordedDownload[] {
    return [...this.#downloads];
  }

  reset(): void {
    this.#files.clear();
    this.#downloads.length = 0;
  }

  /** files.info: `file` required; the token rules were checked by the caller. */
  info(params: Record<string, unknown>): ApiResult {
    const id = typeof params.file === 'string' ? params.file : undefined;
    const stored = id === undefined ? undefined : this.#files.get(id);
    if (stored === undefined) return { ok: false, error: 'file_not_found' };
    return { ok: true, file: { ...stored.file }, comments: [], response_metadata: { next_cursor: '' } };
  }

  /** GET /files-pri/<team>-<id>/[download/]<name>. */
  download(path: string, req: IncomingMessage, res: ServerResponse): void {
    const match = /^([A-Z0-9]+)-(F[A-Z0-9]+)\//.exec(path);
    const stored = match?.[2] === undefined ? undefined : this.#files.get(match[2]);
    const header = req.headers.authorization ?? '';
    const token = /^Bearer (\S+)$/.exec(header)?.[1];
    const answer = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
      this.#downloads.push({ fileId: match?.[2] ?? '', token, status });
      res.writeHead(status, { 'content-length': String(Buffer.byteLength(body)), ...headers });
      res.end(body);
    };
    if (stored === undefined || match?.[1] !== this.teamId) answer(404, 'Not Found');
    else if (token === undefined || !/^xox[bp]-/.test(token)) answer(403, 'Forbidden');
    else if (stored.redirect !== undefined) answer(302, '', { location: stored.redirect });
    else if (stored.hangAfterBytes !== undefined) {
      this.#downloads.push({ fileId: stored.file.id, token, status: 200 });
      res.writeHead(200, {
        'content-type': stored.file.mimetype,
        'content-length': String(stored.bytes.length),
      });
      res.write(stored.bytes.subarray(0, stored.hangAfterBytes));
    } else if (stored.chunked) {
      this.#downloads.push({ fileId: stored.file.id, token, status: 200 });
      res.writeHead(200, { 'content-type': stored.file.mimetype, 'transfer-encoding': 'chunked' });
      // Several writes, so the reader sees the size only as the bytes arrive.
      for (let at = 0; at < stored.bytes.length; at += 16 * 1024)
        res.write(stored.bytes.subarray(at, at + 16 * 1024));
      res.end();
    } else answer(200, stored.bytes, { 'content-type': stored.file.mimetype });
  }
}
