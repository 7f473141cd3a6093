import { describe, expect, it } from '@jest/globals';
import { createLogger, redactSecrets, withFields } from '../../src/logger.js';
import { Secret } from '../../src/secret.js';

const PEM = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIFAKEKEYBODY\n-----END EC PRIVATE KEY-----';

describe('log redaction', () => {
  it('replaces Slack tokens and PEM blocks wherever they appear in a line', () => {
    expect(redactSecrets(`a xoxb-1-2-abc b xoxp-9-x c xapp-1-A1-2-zz d ${PEM} e`)).toBe(
      'a [redacted] b [redacted] c [redacted] d [redacted] e',
    );
  });

  it('replaces the userinfo of any URL (REDIS_URL with its password)', () => {
    expect(
      redactSecrets('connect redis://:hunter2@redis.svc:6379 failed; https://bot:pw@jira.example/x'),
    ).toBe('connect redis://[redacted]@redis.svc:6379 failed; https://[redacted]@jira.example/x');
  });

  it('redacts up to the last @ of the authority, so a password with an @ in it does not leak', () => {
    expect(redactSecrets('redis://:p@ss@redis:6379/0 and https://u:a@b@c@jira.example/x?to=me@x')).toBe(
      'redis://[redacted]@redis:6379/0 and https://[redacted]@jira.example/x?to=me@x',
    );
  });

  it('censors known secret fields, secrets inside messages, and Secret values', () => {
    const lines: string[] = [];
    const logger = withFields(createLogger('info', { write: (l) => lines.push(l) }), {
      jobId: 'j1',
      cluster: 'prod',
    });
    logger.warn(
      { signingSecret: 'plain-signing-secret', tls: { key: 'plain-key' }, token: new Secret('s3cret') },
      `Slack said no to xoxb-123-456-abcdef, key ${PEM}`,
    );
    const [line] = lines;
    const parsed = JSON.parse(line ?? '{}') as Record<string, unknown>;
    expect(parsed).toMatchObject({ jobId: 'j1', cluster: 'prod', signingSecret: '[redacted]' });
    for (const leaked of ['plain-signing-secret', 'plain-key', 's3cret', 'xoxb-123', 'FAKEKEYBODY', 'BEGIN'])
      expect(line).not.toContain(leaked);
  });
});
