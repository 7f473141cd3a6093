/**
 * One contract, every chat adapter (bullmq's adapter-conformance tests): a driver plays the user
 * on the adapter's own platform (a signed Slack request, a typed shell line, a memory call), and the
 * same assertions run against what that user sees.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type {
  ChatAdapter,
  ChatHandlers,
  IncomingAction,
  IncomingCommand,
  MessageRef,
} from '../../../src/chat/adapter.js';
import { type ChatView, textView } from '../../../src/report/chat-view.js';

export interface ContractDriver {
  readonly adapter: ChatAdapter;
  readonly channel: string;
  readonly user: string;
  /** Types `/etcd <text>`; resolves with the private reply once the handler is done. */
  type(text: string): Promise<string>;
  /** A posted message as it reads now. */
  read(ref: MessageRef): Promise<string>;
  /** Messages in the channel, thread replies included (not private ones). */
  count(): Promise<number>;
  /** The root `ts` of a thread reply; undefined for a top-level message. */
  threadOf(ref: MessageRef): Promise<string | undefined>;
  /** Text shown privately to `user` (ephemeral messages), all of it. */
  privateTo(user: string): Promise<string>;
  /** Files shared in the thread under `root`, as the user would open them. */
  filesIn(root: MessageRef): Promise<Array<{ title: string; bytes: Buffer; altText: string | undefined }>>;
  /** Presses the button with this label on a message; resolves with the private reply. */
  press(ref: MessageRef, label: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts the adapter with `handlers` and returns a driver; posts must work before start too (see `unstarted`). */
export type DriverFactory = (handlers: ChatHandlers) => Promise<ContractDriver>;

const reportLikeView = (): ChatView => textView(['line one', 'line two'], 'info', { title: 'A title' });

export function describeChatAdapterContract(name: string, factory: DriverFactory): void {
  describe(`chat adapter contract: ${name}`, () => {
    let driver: ContractDriver;
    const commands: IncomingCommand[] = [];
    const actions: IncomingAction[] = [];
    const handlers: ChatHandlers = {
      async onCommand(command) {
        commands.push(command);
        if (command.text === 'boom') throw new Error('handler exploded');
        await command.respond(textView(`you said: ${command.text}`));
      },
      async onAction(action) {
        actions.push(action);
        await action.respond(textView(`pressed ${action.value}`));
      },
    };

    beforeEach(async () => {
      commands.length = 0;
      actions.length = 0;
      driver = await factory(handlers);
    });
    afterEach(async () => {
      await driver.close();
    });

    it('hands a typed command to onCommand with its text, channel and user, and the reply reaches that user', async () => {
      const reply = await driver.type('health prod');
      expect(reply).toContain('you said: health prod');
      expect(commands).toHaveLength(1);
      expect(commands[0]).toMatchObject({ text: 'health prod', channel: driver.channel, user: driver.user });
    });

    it('answers with words when a handler throws, and keeps serving', async () => {
      const reply = await driver.type('boom');
      expect(reply).toMatch(/something went wrong/i);
      expect(await driver.type('again')).toContain('you said: again');
    });

    it('posts a message and updates it in place', async () => {
      const ref = await driver.adapter.post(
        { channel: driver.channel },
        textView('Diagnosing *prod*: 1 of 6 probes done'),
      );
      expect(await driver.read(ref)).toContain('1 of 6 probes done');
      const before = await driver.count();
      await driver.adapter.update(ref, textView('Diagnosing *prod*: 6 of 6 probes done'));
      expect(await driver.read(ref)).toContain('6 of 6 probes done');
      expect(await driver.read(ref)).not.toContain('1 of 6');
      expect(await driver.count()).toBe(before);
    });

    it('replies in the thread of a root message', async () => {
      const root = await driver.adapter.post({ channel: driver.channel }, textView('root'));
      const reply = await driver.adapter.post({ channel: driver.channel, thread: root }, reportLikeView());
      expect(await driver.threadOf(reply)).toBe(root.ts);
      expect(await driver.threadOf(root)).toBeUndefined();
      expect(await driver.read(reply)).toContain('line two');
    });

    it('shows an ephemeral message to one user', async () => {
      await driver.adapter.ephemeral({ channel: driver.channel }, driver.user, textView('only for you'));
      expect(await driver.privateTo(driver.user)).toContain('only for you');
    });

    it('uploads a picture into the thread of a root message, with its title and alt text', async () => {
      const root = await driver.adapter.post({ channel: driver.channel }, textView('root'));
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00, 0x80]);
      await driver.adapter.upload?.(
        { channel: driver.channel, thread: root },
        { filename: 'prod-chart.png', title: 'prod: wal fsync p99', content: png, altText: 'Bar chart' },
      );
      const files = await driver.filesIn(root);
      expect(files).toHaveLength(1);
      expect(files[0]?.bytes.equals(png)).toBe(true);
      expect(files[0]?.title).toBe('prod: wal fsync p99');
      // A terminal has no alt text to show; where the platform keeps it, it is the one given.
      expect([undefined, 'Bar chart']).toContain(files[0]?.altText);
    });

    it('renders report buttons and routes a press, with its value and user, to onAction', async () => {
      const view: ChatView = {
        kind: 'report',
        report: {
          cluster: 'prod',
          status: 'healthy',
          durationMs: 12,
          members: [],
          findings: [],
          probes: [],
          kind: 'diagnose',
          collectedAt: new Date(0).toISOString(),
        },
        buttons: [
          {
            action: 'rerun',
            label: 'Re-run diagnosis',
            value: '{"v":1,"plan":"first-plan-id"}',
            finding: null,
          },
          {
            action: 'open-ticket',
            label: 'Open a ticket',
            value: '{"v":1,"plan":"second-plan-id"}',
            finding: null,
          },
        ],
      };
      const ref = await driver.adapter.post({ channel: driver.channel }, view);
      const reply = await driver.press(ref, 'Open a ticket');
      expect(actions).toHaveLength(1);
      expect(actions[0]).toMatchObject({
        value: '{"v":1,"plan":"second-plan-id"}',
        user: driver.user,
        channel: driver.channel,
      });
      expect(reply).toContain('pressed {"v":1,"plan":"second-plan-id"}');
    });
  });
}
