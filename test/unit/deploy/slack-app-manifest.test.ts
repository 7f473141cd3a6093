import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { z } from 'zod';
import { commands } from '../../../commands/index.js';

/**
 * deploy/slack-app-manifest.yaml against the manifest rules in shared/reference/slack-contract.md §7
 * (slackapi/manifest-schema): required fields, lengths, and what etcd-doctor needs from Slack.
 */
const manifestSchema = z.object({
  _metadata: z.object({ major_version: z.literal(1), minor_version: z.number() }),
  display_information: z.object({
    name: z.string().min(1).max(35),
    description: z.string().max(140).optional(),
  }),
  features: z.object({
    bot_user: z.object({ display_name: z.string().min(1).max(80), always_online: z.boolean() }),
    slash_commands: z
      .array(
        z.strictObject({
          command: z.string().regex(/^\/[a-z0-9_-]{1,31}$/),
          description: z.string().min(1).max(2000),
          usage_hint: z.string().max(1000).optional(),
          should_escape: z.boolean().optional(),
          url: z.url().max(3000).optional(),
        }),
      )
      .min(1)
      .max(50),
  }),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string()) }) }),
  settings: z.object({
    interactivity: z.object({ is_enabled: z.boolean(), request_url: z.url().optional() }),
    org_deploy_enabled: z.boolean(),
    socket_mode_enabled: z.boolean(),
    token_rotation_enabled: z.boolean(),
  }),
});

const text = readFileSync(new URL('../../../deploy/slack-app-manifest.yaml', import.meta.url), 'utf8');
const manifest = manifestSchema.parse(parse(text));

describe('Slack app manifest', () => {
  it('declares /etcd with every command in its usage hint', () => {
    const etcd = manifest.features.slash_commands.find((c) => c.command === '/etcd');
    expect(etcd).toBeDefined();
    for (const command of commands) expect(etcd?.usage_hint).toContain(command.name);
  });

  it('asks for the scopes the bot uses, and no more', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([
      'chat:write',
      'commands',
      'files:write',
      'usergroups:read',
    ]);
  });

  it('enables interactivity (buttons) and Socket Mode', () => {
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it('documents HTTP mode: both request URLs point at /slack/events', () => {
    const urls = [...text.matchAll(/#\s*(?:url|request_url): (\S+)/g)].map((m) => m[1]);
    expect(urls).toHaveLength(2);
    for (const url of urls) expect(url).toMatch(/^https:\/\/.+\/slack\/events$/);
  });
});
