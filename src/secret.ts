/** A value that never prints itself: `toString`, `toJSON` and inspection all give `[redacted]`. */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[redacted]';
  }
}

/**
 * `scheme://user:password@` in any text (a URL on its own, or inside an error message). The
 * userinfo runs to the LAST `@` of the authority (which ends at `/`, `?`, `#` or a space): a
 * password typed with a raw `@` (`redis://:p@ss@redis`) is redacted whole, not up to its own `@`.
 * Both runs are bounded (a scheme of at most 32 characters, RFC 3986 names none longer; userinfo of
 * at most 1,024), so each start position costs a bounded scan: linear on any text, where the
 * unbounded form took seconds on one long word of dots (every position a word boundary).
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#]{0,1024}@/gi;

/**
 * Replaces the userinfo of every URL in `text` with `[redacted]`: `redis://:hunter2@redis:6379` →
 * `redis://[redacted]@redis:6379`. Used wherever a URL may be printed (CLI errors, logs, Slack).
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1[redacted]@');
}
