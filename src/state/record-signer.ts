import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret } from '../secret.js';

/**
 * What Redis holds is not trusted to say what a remediation does: anyone who can write to it could
 * otherwise put a plan ("snooze prod for a week", "replace etcd-2") and a job pressing it there. A
 * plan and a remediation job carry an HMAC-SHA256 over their exact text with REMEDIATION_SIGNING_KEY,
 * a key that lives in the processes (a Kubernetes Secret) and is never written to Redis; a reader
 * that finds no signature, or one that does not match, refuses the record.
 *
 * The signed text starts with the record's kind and its id (the Redis key's id), so a signed plan
 * copied under another id, or a plan's signature put on a job, does not verify.
 */
export interface RecordSigner {
  sign(kind: SignedKind, id: string, text: string): string;
  verify(kind: SignedKind, id: string, text: string, signature: string | undefined): Verdict;
}

export type SignedKind = 'plan' | 'remediate-job';

/** `unsigned`: no signature at all (forged, or written before plans were signed); `altered`: one that does not match. */
export type Verdict = 'ok' | 'unsigned' | 'altered';

/** A base64url HMAC-SHA256 is 43 characters; anything else is not one of ours. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

export function createRecordSigner(key: Secret): RecordSigner {
  const mac = (kind: SignedKind, id: string, text: string) =>
    createHmac('sha256', key.reveal()).update(`${kind}\n${id}\n${text}`).digest();
  return {
    sign: (kind, id, text) => mac(kind, id, text).toString('base64url'),
    verify(kind, id, text, signature) {
      if (signature === undefined || signature === '') return 'unsigned';
      if (!SIGNATURE.test(signature)) return 'altered';
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(kind, id, text);
      return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'altered';
    },
  };
}

/**
 * A key for one process, when REMEDIATION_SIGNING_KEY is not set (the shell, `npm run demo`, one
 * `serve` process): its plans verify only in the process that signed them, which is all a single
 * process needs; the Slack bot and worker roles, which are separate processes, require the key.
 */
export function processSigningKey(): Secret {
  return new Secret(randomBytes(32).toString('hex'));
}
