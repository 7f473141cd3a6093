import { readFile } from 'node:fs/promises';
import { withDeadline } from '../timing.js';
import { createRedisConnections, type Redis, type RedisConnections } from '../clients/redis.js';
import { abortableSleep } from '../timing.js';
import { createDoctor, type Doctor } from '../doctor.js';
import type { RoleTuning, StartRolesOptions } from './role-options.js';
import { createRecordSigner, processSigningKey, type RecordSigner } from '../state/record-signer.js';

/** What the process's shared parts are built from (a role setup, or startRoles' options). */
export type ProcessPartsOptions = Pick<
  StartRolesOptions,
  'config' | 'redisUrl' | 'logger' | 'metrics' | 'signingKey' | 'doctor' | 'readFileBuffer'
>;

/**
 * What every part of a process shares, built once: the doctor, the Redis connections (each one
 * logs once when Redis goes away, and the first one answers /readyz) and the signer. The roles
 * (startRoles) and the HTTP features beside them (MCP's /mcp) take theirs from it, so the process
 * has one composition root; stopping the roles closes it.
 */
export interface ProcessParts {
  readonly doctor: Doctor;
  /** The doctor was built here (not given), so stopping the roles closes it. */
  readonly ownsDoctor: boolean;
  readonly redis: RedisConnections;
  /** Signs and checks plans and remediation jobs with the deployment's key (or this process's). */
  readonly signer: RecordSigner;
  connect(name: string): Redis;
  /** Redis answers PING within 500 ms. */
  redisReady(): Promise<boolean>;
  /** QUITs every connection (each within 1 s), then stops reconnecting. */
  closeRedis(redisUp: boolean): Promise<void>;
}

/** What every role of a process shares: the process's parts, and the roles' options. */
export interface RoleBase extends ProcessParts {
  readonly opts: StartRolesOptions;
  readonly tuning: RoleTuning;
  readonly now: () => number;
}

/** The roles' base on the process's parts (built here when the process has not built them). */
export function createRoleBase(opts: StartRolesOptions, parts = createProcessParts(opts)): RoleBase {
  return { ...parts, opts, tuning: opts.tuning ?? {}, now: opts.now ?? Date.now };
}

export function createProcessParts(opts: ProcessPartsOptions): ProcessParts {
  const doctor =
    opts.doctor ??
    createDoctor({
      config: opts.config,
      readFileBuffer: opts.readFileBuffer ?? ((p) => readFile(p)),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
    });
  const connections: Redis[] = [];
  const redis = createRedisConnections(opts.redisUrl);
  return {
    doctor,
    ownsDoctor: !opts.doctor,
    redis,
    signer: createRecordSigner(opts.signingKey ?? processSigningKey()),
    connect(name) {
      const connection = redis.connect(name);
      let down = false;
      connection.on('error', (err: Error) => {
        if (!down) opts.logger.warn({ connection: name, err: err.message }, 'Redis is unreachable; retrying');
        down = true;
      });
      connection.on('ready', () => {
        down = false;
      });
      connections.push(connection);
      return connection;
    },
    async redisReady() {
      const first = connections[0];
      if (!first) return false;
      const pong = await Promise.race([
        first.ping().catch(() => 'down'),
        abortableSleep(500).then(() => 'slow'),
      ]);
      return pong === 'PONG';
    },
    async closeRedis(redisUp) {
      if (redisUp) {
        await Promise.all(
          connections.map((c) =>
            withDeadline(
              c.quit().then(() => undefined),
              1000,
              () => undefined,
            ),
          ),
        );
      }
      redis.shutdown();
    },
  };
}

/** The tuning fields that are set, to spread into a component's options. */
export function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (obj[key] !== undefined) out[key] = obj[key];
  return out;
}
