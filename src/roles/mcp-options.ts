import type { McpHttpOptions } from '../mcp/install-mcp-http.js';
import type { Secret } from '../secret.js';
import type { RoleSetup } from './role-options.js';

/** /mcp's options from the process's setup: the same for the Slack roles and the shell. */
export function mcpHttpOptions(setup: RoleSetup, token: Secret | undefined): McpHttpOptions {
  return {
    token,
    config: setup.config,
    redisUrl: setup.redisUrl,
    queuePrefix: setup.queuePrefix,
    logger: setup.logger,
    ...(setup.metrics ? { metrics: setup.metrics } : {}),
  };
}
