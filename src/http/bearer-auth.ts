import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../secret.js';

/**
 * The token check of every authenticated route (Alertmanager's webhook with ALERTMANAGER_TOKEN,
 * MCP's /mcp with MCP_TOKEN). Alertmanager's `http_config` sends either
 * `authorization: { credentials: <token> }` (Bearer) or `basic_auth: { username, password }`, so
 * both are taken: the token as the bearer token, or as the basic-auth password (any username). No
 * token configured means nothing is accepted.
 */
export function isAuthorized(header: string | undefined, token: Secret | undefined): boolean {
  if (!token || !header) return false;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'bearer') return same(value, token.reveal());
  if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && same(decoded.slice(colon + 1), token.reveal());
  }
  return false;
}

/** Constant-time comparison of equal-length digests, so the token's length does not leak either. */
function same(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
