import type { McpHttpOptions } from '../mcp/install-mcp-http.js';
import type { Secret } from '../secret.js';
import { keyPrefixFor } from '../config/redis-target.js';
import type { ProcessParts } from './role-base.js';
import type { RoleSetup } from './role-options.js';

/**
 * /mcp's options from the process's setup and its parts (the doctor and Redis the roles run on):
 * the same for the Slack roles and the shell. The key prefix is the roles' own (startRoles), so the
 * audit trail is read where the worker writes it, on a Redis Cluster too.
 */
export function mcpHttpOptions(
  setup: RoleSetup,
  parts: ProcessParts,
  token: Secret | undefined,
): McpHttpOptions {
  return {
    token,
    config: setup.config,
    redisUrl: setup.redisUrl,
    queuePrefix: keyPrefixFor(setup.redisUrl, setup.queuePrefix),
    logger: setup.logger,
    parts,
  };
}
