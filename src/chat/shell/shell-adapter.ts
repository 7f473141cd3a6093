import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import {
  APOLOGY_TEXT,
  type ChatAdapter,
  type ChatFile,
  type ChatHandlers,
  type Destination,
  type MessageRef,
} from '../adapter.js';
import type { ChatView, ViewButton } from '../../report/chat-view.js';
import { renderViewText } from '../../report/render-view-text.js';

export interface ShellAdapterOptions {
  input: Readable;
  output: Writable;
  /** A terminal: prompt, and show progress updates as they come. Otherwise read lines until EOF. */
  interactive: boolean;
  channel?: string;
  user?: string;
  /**
   * Resolves when every job asked for so far has answered. Piped input waits for it at the end (so
   * every answer is printed before exit) and before pressing a button number.
   */
  whenIdle?: () => Promise<void>;
  /** Where uploaded files (charts) are written; the shell prints each one's path. Default <tmp>/etcd-doctor-files. */
  fileDir?: string;
}

export interface ShellAdapter extends ChatAdapter {
  /** Resolves once input has ended (EOF, `exit`) and `whenIdle` has resolved. */
  readonly finished: Promise<void>;
}

interface Pressable {
  button: ViewButton;
  message: MessageRef;
}

/** `/etcd health prod`, or just `health prod`: in a terminal the prefix is optional. */
const COMMAND = /^(?:\/etcd(?:\s+(.*))?|([^/\d].*))$/;
const HINT = 'Type /etcd help for the commands, or the number of a button to press it.';
/** `analyze <path...>`: collected evidence on this machine, analysed offline (issue 16). */
const ANALYZE = /^(?:\/etcd\s+)?analyze(?:\s+(.*))?$/i;
const ANALYZE_USAGE =
  'Usage: analyze <path...>  a must-gather (directory or .tar.gz), a `kubectl cluster-info dump`, or etcd log files (one per member)';

/**
 * The default chat when no Slack tokens are set (as in Hubot and Errbot): commands typed in a
 * terminal, answers printed as text, buttons numbered [1], [2], ... and pressed by typing the number.
 */
export function createShellAdapter(opts: ShellAdapterOptions): ShellAdapter {
  const channel = opts.channel ?? 'shell';
  const user = opts.user ?? 'you';
  const buttons = new Map<number, Pressable>();
  let messageSeq = 0;
  let buttonSeq = 0;
  let fileSeq = 0;
  let rl: Interface | undefined;
  let markFinished: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    markFinished = resolve;
  });

  const print = (text: string): void => {
    opts.output.write(`${text}\n`);
  };
  const render = (view: ChatView, message: MessageRef): string =>
    renderViewText(view, {
      button: (button) => {
        buttonSeq += 1;
        buttons.set(buttonSeq, { button, message });
        return `[${buttonSeq}] ${button.label}`;
      },
    });
  const respondWith = (view: ChatView): Promise<void> => {
    print(renderViewText(view));
    return Promise.resolve();
  };

  const analyzeLine = async (handlers: ChatHandlers, words: string): Promise<void> => {
    const paths = words.split(/\s+/).filter(Boolean);
    if (!handlers.onFiles) return print('Offline analysis is not available in this shell.');
    if (!paths.length) return print(ANALYZE_USAGE);
    messageSeq += 1;
    await handlers.onFiles({
      channel,
      user,
      messageId: `shell-${messageSeq}-${Date.now()}`,
      files: paths.map((p) => ({ kind: 'local' as const, path: resolve(p), name: basename(p) })),
      respond: respondWith,
    });
  };

  const handleLine = async (handlers: ChatHandlers, raw: string): Promise<void> => {
    const line = raw.trim();
    if (line === '') return;
    if (!opts.interactive) print(`> ${line}`);
    const analyze = ANALYZE.exec(line);
    if (analyze) return analyzeLine(handlers, analyze[1] ?? '');
    const command = COMMAND.exec(line);
    if (command) {
      const text = command[1] ?? command[2] ?? '';
      await handlers.onCommand({ text, channel, user, respond: respondWith });
      return;
    }
    if (/^\d+$/.test(line)) {
      // A script presses buttons of answers it has not seen yet: let those answers arrive first.
      if (!opts.interactive) await opts.whenIdle?.();
      const pressed = buttons.get(Number(line));
      if (!pressed) return print(`There is no button [${line}]. ${HINT}`);
      const { button, message } = pressed;
      await handlers.onAction({
        actionId: button.action,
        value: button.value,
        channel,
        user,
        message,
        respond: respondWith,
      });
      return;
    }
    print(HINT);
  };

  const readLoop = async (handlers: ChatHandlers, reader: Interface): Promise<void> => {
    if (opts.interactive) reader.prompt();
    for await (const line of reader) {
      if (/^(exit|quit)$/i.test(line.trim())) break;
      try {
        await handleLine(handlers, line);
      } catch {
        print(APOLOGY_TEXT);
      }
      if (opts.interactive) reader.prompt();
    }
    reader.close();
    await opts.whenIdle?.();
    markFinished();
  };

  return {
    kind: 'shell',
    finished,
    async start(handlers) {
      rl = createInterface({
        input: opts.input,
        ...(opts.interactive ? { output: opts.output, prompt: 'etcd> ', terminal: true } : {}),
        crlfDelay: Number.POSITIVE_INFINITY,
      });
      // readline in terminal mode swallows Ctrl-C (it only pauses): make it leave, as Ctrl-D does.
      rl.on('SIGINT', () => rl?.close());
      if (opts.interactive) print(`etcd-doctor shell. ${HINT} Ctrl-C, Ctrl-D or exit to leave.`);
      void readLoop(handlers, rl).catch(() => markFinished());
    },
    async stop() {
      rl?.close();
    },
    async post(to: Destination, view: ChatView) {
      messageSeq += 1;
      const ref: MessageRef = {
        channel: to.channel,
        ts: String(messageSeq),
        link: `shell message #${messageSeq}`,
      };
      const where = to.thread ? ` (reply to #${to.thread.ts})` : '';
      print(`#${messageSeq}${where} ${render(view, ref)}`);
      return ref;
    },
    async update(ref, view) {
      // Progress ticks would flood a transcript; a terminal shows them as they come.
      if (view.kind === 'progress' && !opts.interactive) return;
      print(`#${ref.ts} (updated) ${render(view, ref)}`);
    },
    async ephemeral(_to, _user, view) {
      print(renderViewText(view));
    },
    async upload(to, file: ChatFile) {
      if (typeof file.content === 'string') {
        print(`(file ${file.filename}: ${file.title})\n${file.content}`);
        return;
      }
      // A terminal cannot show a picture: write it to a file and print where it is.
      fileSeq += 1;
      const dir = opts.fileDir ?? join(tmpdir(), 'etcd-doctor-files');
      const path = join(dir, `${fileSeq}-${file.filename.replace(/[^\w.-]+/g, '_')}`);
      await mkdir(dir, { recursive: true });
      await writeFile(path, file.content);
      print(`(file${to.thread ? `, reply to #${to.thread.ts}` : ''}) ${file.title}: ${path}`);
    },
  };
}
