import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { envSchema } from '../../../src/config/env.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { runRole } from '../../../src/roles/run-role.js';

/**
 * Issue 38 item 3: the bot signs remediation jobs and the workers sign plans, so two Slack roles in
 * two processes need one key. Without it they stop at start with a line that says what to set, before
 * anything connects; a short key is refused as a short token is.
 */
const config = configFileSchema.parse({
  clusters: [{ name: 'dead', etcd: { endpoints: ['http://127.0.0.1:1'] } }],
});

function start(role: 'bot' | 'worker', env: Record<string, string>) {
  const parsed = envSchema.parse({ SLACK_BOT_TOKEN: 'xoxb-1-key', SLACK_APP_TOKEN: 'xapp-1-key', ...env });
  return runRole({
    role,
    env: parsed,
    config,
    queuePrefix: 'never-used',
    logger: silentLogger,
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    interactive: false,
    shutdown: AbortSignal.abort(),
  });
}

describe('REMEDIATION_SIGNING_KEY', () => {
  it.each(['bot', 'worker'] as const)(
    'etcd-doctor %s without it stops at start and says what to set',
    async (role) => {
      await expect(start(role, {})).rejects.toThrow(
        `etcd-doctor ${role} needs REMEDIATION_SIGNING_KEY, the key that signs remediation plans and jobs: the same in the bot and every worker, at least 32 characters (openssl rand -hex 32), kept in a Secret, never in Redis`,
      );
    },
  );

  it('shorter than 32 characters is refused by the env schema', () => {
    const parsed = envSchema.safeParse({ REMEDIATION_SIGNING_KEY: 'short' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('must be at least 32 characters (openssl rand -hex 32)');
  });
});
