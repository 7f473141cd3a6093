import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * One HTTP route that a feature plugs into the process's server: Slack's receiver serves them
 * beside /slack/events, the roles' own server (http/server.ts) alone. Health, metrics,
 * Alertmanager's webhook and MCP's /mcp are routes.
 */
export interface HttpRoute {
  path: string;
  method: 'GET' | 'POST';
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}
