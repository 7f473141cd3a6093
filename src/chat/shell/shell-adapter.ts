import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
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
  /** The one line a terminal shows first. Default: how to get help and how to leave. */
  greeting?: string;
  /** The one line a terminal shows on leaving (Ctrl-C, Ctrl-D, exit): what stops. */
  farewell?: string;
}

export interface ShellAdapter extends ChatAdapter {
  /** Resolves once input has ended (EOF, `exit`) and `whenIdle` has resolved. */
  readonly finished: Promise<void>;
}

interface Pressable {
  button: ViewButton;
  /** The message it sits on; a private reply's buttons (a confirmation's Run it) sit on none. */
  message?: MessageRef;
}

/** `/etcd health prod`, or just `health prod`: in a terminal the prefix is optional. */
const COMMAND = /^(?:\/etcd(?:\s+(.*))?|([^/\d].*))$/;
const LEAVE = 'Ctrl-C, Ctrl-D or exit leaves.';
const GREETING = `etcd-doctor shell: type help for the commands (the /etcd prefix is optional). ${LEAVE}`;
const FAREWELL = 'Leaving the shell: stopping its queue and worker.';

/** What to type: the button numbers are mentioned only once an answer has shown some. */
function hint(buttons: number): string {
  return buttons > 0
    ? `Type /etcd help for the commands, or a button number ([1] to [${buttons}]) to press it.`
    : 'Type /etcd help for the commands.';
}
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
  const screen = createScreen(opts.output, opts.interactive);
  const print = screen.print;
  let markFinished: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    markFinished = resolve;
  });

  const render = (view: ChatView, message?: MessageRef): string =>
    renderViewText(view, {
      button: (button) => {
        buttonSeq += 1;
        buttons.set(buttonSeq, message ? { button, message } : { button });
        return `[${buttonSeq}] ${button.label}`;
      },
    });
  const respondWith = (view: ChatView): Promise<void> => {
    print(render(view));
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
      if (!pressed) return print(`There is no button [${line}]. ${hint(buttonSeq)}`);
      const { button, message } = pressed;
      await handlers.onAction({
        actionId: button.action,
        value: button.value,
        channel,
        user,
        ...(message ? { message } : {}),
        respond: respondWith,
      });
      return;
    }
    print(hint(buttonSeq));
  };

  const readLoop = async (handlers: ChatHandlers, reader: Interface): Promise<void> => {
    screen.prompt(reader);
    for await (const line of reader) {
      screen.busy();
      if (/^(exit|quit)$/i.test(line.trim())) break;
      try {
        await handleLine(handlers, line);
      } catch {
        print(APOLOGY_TEXT);
      }
      screen.prompt(reader);
    }
    screen.busy();
    reader.close();
    if (opts.interactive) print(opts.farewell ?? FAREWELL);
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
      rl.on('SIGINT', () => {
        screen.newLine();
        rl?.close();
      });
      if (opts.interactive) print(opts.greeting ?? GREETING);
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
      print(render(view));
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

/**
 * The terminal's side of printing: output that arrives while the prompt waits for a line
 * (progress, answers from the worker) goes above it, and the prompt comes back below with
 * whatever was being typed. Piped output is plain lines.
 */
function createScreen(output: Writable, interactive: boolean) {
  /** The prompt is on screen, waiting for a line. */
  let waitingOn: Interface | undefined;
  return {
    print(text: string): void {
      if (!waitingOn) {
        output.write(`${text}\n`);
        return;
      }
      clearLine(output, 0);
      cursorTo(output, 0);
      output.write(`${text}\n`);
      waitingOn.prompt(true);
    },
    prompt(reader: Interface): void {
      if (!interactive) return;
      reader.prompt();
      waitingOn = reader;
    },
    /** A line was entered: output goes below it until the next prompt. */
    busy(): void {
      waitingOn = undefined;
    },
    /** Ctrl-C at the prompt: leave its line before saying goodbye. */
    newLine(): void {
      if (waitingOn) output.write('\n');
    },
  };
}
