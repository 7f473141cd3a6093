import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { z } from 'zod';
import { commands } from '../../../src/commands/index.js';

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
    app_home: z.object({
      home_tab_enabled: z.boolean(),
      messages_tab_enabled: z.boolean(),
      messages_tab_read_only_enabled: z.boolean(),
    }),
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
    event_subscriptions: z.object({ request_url: z.url().optional(), bot_events: z.array(z.string()) }),
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
      'app_mentions:read',
      'chat:write',
      'commands',
      'files:read',
      'files:write',
      'im:history',
      'usergroups:read',
    ]);
  });

  it('subscribes to the events offline triage listens for, with the DM open to messages', () => {
    // message.im needs im:history, app_mention needs app_mentions:read (docs.slack.dev/reference/events).
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([
      'app_mention',
      'message.im',
    ]);
    expect(manifest.features.app_home).toMatchObject({
      messages_tab_enabled: true,
      messages_tab_read_only_enabled: false,
    });
  });

  it('enables interactivity (buttons) and Socket Mode', () => {
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it('documents HTTP mode: the three request URLs (command, interactivity, events) point at /slack/events', () => {
    const urls = [...text.matchAll(/#\s*(?:url|request_url): (\S+)/g)].map((m) => m[1]);
    expect(urls).toHaveLength(3);
    for (const url of urls) expect(url).toMatch(/^https:\/\/.+\/slack\/events$/);
  });
});
