import { readFile } from 'node:fs/promises';
import { createSlackAdapter } from '../chat/slack/slack-adapter.js';
import { createRedisConnections } from '../clients/redis.js';
import { loadConfigFor, requireEnv } from '../config/load-config.js';
import { runDigestNow } from '../digest/digest-now.js';
import { createDoctor } from '../doctor.js';
import { createLogger } from '../logger.js';
import { type CliIo, EXIT } from './io.js';
import { describeRedisTarget, redisPlaceFromEnv } from '../config/redis-target.js';

export interface DigestOptions {
  now: true;
  channel?: string;
  config?: string;
  queuePrefix: string;
}

/** Redis answers PING within this long, or the digest goes out without trends. */
const DIGEST_REDIS_WAIT_MS = 2000;

/** `etcd-doctor digest --now`: the daily digest, to Slack or printed. */
export async function runDigestCommand(options: DigestOptions, io: CliIo): Promise<number> {
  const env = requireEnv(io.env);
  const config = await loadConfigFor(options.config, io.env);
  const logger = createLogger(io.env.LOG_LEVEL === undefined ? 'warn' : env.LOG_LEVEL);
  const place = redisPlaceFromEnv(env, options.queuePrefix);
  const connections = createRedisConnections(place.target);
  const redis = connections.connect('etcd-doctor-digest-now');
  redis.on('error', () => undefined);
  const timeout = new Promise<'timeout'>((resolve) =>
    setTimeout(resolve, DIGEST_REDIS_WAIT_MS, 'timeout').unref(),
  );
  const up = (await Promise.race([redis.ping().catch(() => 'down'), timeout])) === 'PONG';
  if (!up)
    io.stderr(
      `etcd-doctor: Redis at ${describeRedisTarget(place.target)} does not answer; the digest has no trends`,
    );
  const token = env.SLACK_BOT_TOKEN;
  const chat = token
    ? createSlackAdapter({
        botToken: token,
        ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
        logger,
      })
    : undefined;
  const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
  try {
    const results = await runDigestNow({
      config,
      doctor,
      redis: up ? redis : undefined,
      prefix: place.prefix,
      chat,
      print: io.stdout,
      ...(options.channel ? { channel: options.channel } : {}),
      logger,
      now: Date.now,
    });
    if (chat) for (const r of results) io.stdout(`digest sent to ${r.channel}`);
    return EXIT.healthy;
  } finally {
    await doctor.close();
    connections.shutdown();
  }
}
