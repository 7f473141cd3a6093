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
  /** Resolves once input has ended (EOF, `exit`) and `whenIdle` has resolved, with the lines read. */
  readonly finished: Promise<number>;
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
    ? `Type help for the commands, or a button number ([1] to [${buttons}]) to press it.`
    : 'Type help for the commands.';
}
/** `analyze <path...>`: collected evidence on this machine, analysed offline (offline/). */
const ANALYZE = /^(?:\/etcd\s+)?analyze(?:\s+(.*))?$/i;
const ANALYZE_USAGE =
  'Usage: analyze <path...>  a must-gather (directory or .tar.gz), a `kubectl cluster-info dump`, or etcd log files (one per member)';

/** Numbers the buttons of every answer shown, [1], [2], ..., for typing the number to press one. */
function createButtonBoard() {
  const pressables = new Map<number, Pressable>();
  let shown = 0;
  return {
    /** The view as text, its buttons numbered on from the last answer's. */
    render(view: ChatView, message?: MessageRef): string {
      return renderViewText(view, {
        button: (button) => {
          shown += 1;
          pressables.set(shown, message ? { button, message } : { button });
          return `[${shown}] ${button.label}`;
        },
      });
    },
    get(number: number): Pressable | undefined {
      return pressables.get(number);
    },
    /** How many buttons have been shown so far (the highest number). */
    get shown(): number {
      return shown;
    },
  };
}

/** One shell's state, shared by its line handling and its ChatAdapter methods. */
interface ShellSession {
  opts: ShellAdapterOptions;
  channel: string;
  user: string;
  screen: Screen;
  buttons: ReturnType<typeof createButtonBoard>;
  /** Messages posted and analyses asked for so far: numbers the next one. */
  messageSeq: number;
  respondWith: (view: ChatView) => Promise<void>;
}

async function analyzeLine(session: ShellSession, handlers: ChatHandlers, words: string): Promise<void> {
  const paths = words.split(/\s+/).filter(Boolean);
  if (!handlers.onFiles) return session.screen.print('Offline analysis is not available in this shell.');
  if (!paths.length) return session.screen.print(ANALYZE_USAGE);
  session.messageSeq += 1;
  await handlers.onFiles({
    channel: session.channel,
    user: session.user,
    messageId: `shell-${session.messageSeq}-${Date.now()}`,
    files: paths.map((p) => ({ kind: 'local' as const, path: resolve(p), name: basename(p) })),
    respond: session.respondWith,
  });
}

/** A button number typed: press that button. */
async function pressButton(session: ShellSession, handlers: ChatHandlers, line: string): Promise<void> {
  // A script presses buttons of answers it has not seen yet: let those answers arrive first.
  if (!session.opts.interactive) await session.opts.whenIdle?.();
  const pressed = session.buttons.get(Number(line));
  if (!pressed) return session.screen.print(`There is no button [${line}]. ${hint(session.buttons.shown)}`);
  const { button, message } = pressed;
  await handlers.onAction({
    actionId: button.action,
    value: button.value,
    channel: session.channel,
    user: session.user,
    ...(message ? { message } : {}),
    respond: session.respondWith,
  });
}

async function handleLine(session: ShellSession, handlers: ChatHandlers, raw: string): Promise<void> {
  const line = raw.trim();
  if (line === '') return;
  if (!session.opts.interactive) session.screen.print(`> ${line}`);
  const analyze = ANALYZE.exec(line);
  if (analyze) return analyzeLine(session, handlers, analyze[1] ?? '');
  const command = COMMAND.exec(line);
  if (command) {
    const text = command[1] ?? command[2] ?? '';
    await handlers.onCommand({
      text,
      channel: session.channel,
      user: session.user,
      respond: session.respondWith,
    });
    return;
  }
  if (/^\d+$/.test(line)) return pressButton(session, handlers, line);
  session.screen.print(hint(session.buttons.shown));
}

/** How long the prompt waits for a command's answer before it comes back anyway. */
export const ANSWER_WAIT_MS = 60_000;

/**
 * In a terminal the prompt comes back once the answer is printed (issue 42: it came back at 3.5 s
 * and the answer printed itself below it later), or after ANSWER_WAIT_MS with a line saying the
 * answer still comes, or at once on Ctrl-C. Lines typed meanwhile wait their turn.
 */
async function answersShown(session: ShellSession, reader: Interface): Promise<void> {
  const { opts, screen } = session;
  if (!opts.interactive || !opts.whenIdle) return;
  let timer: NodeJS.Timeout | undefined;
  let onClose: (() => void) | undefined;
  const outcome = await Promise.race([
    opts.whenIdle().then(() => 'shown' as const),
    new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), ANSWER_WAIT_MS);
    }),
    new Promise<'closed'>((resolve) => {
      onClose = () => resolve('closed');
      reader.once('close', onClose);
    }),
  ]);
  clearTimeout(timer);
  if (onClose) reader.off('close', onClose);
  if (outcome === 'late') screen.print('Still working on it: the answer will be printed here when it comes.');
}

/** Reads lines until EOF or `exit`, then waits for the answers still due (`whenIdle`). */
async function readLoop(session: ShellSession, handlers: ChatHandlers, reader: Interface): Promise<number> {
  const { screen, opts } = session;
  let lines = 0;
  screen.prompt(reader);
  for await (const line of reader) {
    lines += 1;
    screen.busy();
    if (/^(exit|quit)$/i.test(line.trim())) break;
    try {
      await handleLine(session, handlers, line);
      await answersShown(session, reader);
    } catch {
      screen.print(APOLOGY_TEXT);
    }
    screen.prompt(reader);
  }
  screen.busy();
  reader.close();
  if (opts.interactive) screen.print(opts.farewell ?? FAREWELL);
  await opts.whenIdle?.();
  return lines;
}

/** A picture cannot show in a terminal: it is written to a file, and the shell prints where. */
async function writeUpload(opts: ShellAdapterOptions, file: ChatFile): Promise<string> {
  const dir = opts.fileDir ?? join(tmpdir(), 'etcd-doctor-files');
  // Numbered per process, so named for the process too: a second shell never replaces the first's
  // charts, and `wx` refuses to overwrite a file should the name ever meet one.
  uploads += 1;
  const path = join(dir, `${UPLOAD_RUN}-${uploads}-${file.filename.replace(/[^\w.-]+/g, '_')}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path, file.content, { flag: 'wx' });
  return path;
}

/** Uploads written by this process so far: numbers the next file. */
let uploads = 0;
/** This process's part of an upload's file name: when it started (UTC, to the second) and its pid. */
const UPLOAD_RUN = `${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '')}-${process.pid}`;

/**
 * The default chat when no Slack tokens are set (as in Hubot and Errbot): commands typed in a
 * terminal, answers printed as text, buttons numbered [1], [2], ... and pressed by typing the number.
 */
export function createShellAdapter(opts: ShellAdapterOptions): ShellAdapter {
  const screen = createScreen(opts.output, opts.interactive);
  const buttons = createButtonBoard();
  const print = screen.print;
  const session: ShellSession = {
    opts,
    channel: opts.channel ?? 'shell',
    user: opts.user ?? 'you',
    screen,
    buttons,
    messageSeq: 0,
    respondWith: (view) => {
      print(buttons.render(view));
      return Promise.resolve();
    },
  };
  let rl: Interface | undefined;
  let markFinished: (lines: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    markFinished = resolve;
  });

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
      void readLoop(session, handlers, rl).then(
        (lines) => markFinished(lines),
        () => markFinished(0),
      );
    },
    async stop() {
      rl?.close();
    },
    async post(to: Destination, view: ChatView) {
      session.messageSeq += 1;
      const seq = session.messageSeq;
      const ref: MessageRef = { channel: to.channel, ts: String(seq), link: `shell message #${seq}` };
      const where = to.thread ? ` (reply to #${to.thread.ts})` : '';
      const text = buttons.render(view, ref);
      print(`#${seq}${where} ${text}`, { ts: ref.ts, text });
      return ref;
    },
    async update(ref, view) {
      // Progress ticks would flood a transcript; a terminal shows them as they come.
      if (view.kind === 'progress' && !opts.interactive) return;
      const text = buttons.render(view, ref);
      // A message that grew by lines (an action's steps) while it was the last thing shown: only the
      // new lines, under it. One whose first line changed (its outcome) over lines already shown: the
      // new first line and only the lines not shown yet (issue 42: a recovery's 13 steps printed
      // twice). Otherwise the whole message again, marked as updated.
      const shown = screen.lastBlock(ref.ts);
      const before = screen.shownText(ref.ts);
      if (shown !== undefined && text.startsWith(`${shown}\n`))
        print(text.slice(shown.length + 1), { ts: ref.ts, text });
      else print(`#${ref.ts} (updated) ${newPart(before, text)}`, { ts: ref.ts, text });
    },
    async ephemeral(_to, _user, view) {
      print(buttons.render(view));
    },
    async upload(to, file: ChatFile) {
      if (typeof file.content === 'string') {
        print(`(file ${file.filename}: ${file.title})\n${file.content}`);
        return;
      }
      const path = await writeUpload(opts, file);
      print(`(file${to.thread ? `, reply to #${to.thread.ts}` : ''}) ${file.title}: ${path}`);
    },
  };
}

/** Messages whose last printed text the screen remembers (a session's recent answers). */
const SHOWN_MESSAGES = 50;

/**
 * An updated message as it needs printing: whole, unless its lines after the first were printed
 * already (a remediation's steps shown one by one, then its outcome on top, with the same steps
 * less the "…ing" ones): then the new first line, and only the lines not printed before.
 */
export function newPart(before: string | undefined, text: string): string {
  if (before === undefined) return text;
  const [, ...oldBody] = before.split('\n');
  const [head = '', ...body] = text.split('\n');
  if (oldBody.length < 2) return text;
  // The old lines the new ones repeat, in order (a subsequence of the old body).
  let i = 0;
  const fresh: string[] = [];
  for (const line of body) {
    const at = oldBody.indexOf(line, i);
    if (at === -1) fresh.push(line);
    else i = at + 1;
  }
  if (body.length - fresh.length < 2) return text;
  return [`${head} (its steps are shown above)`, ...fresh].join('\n');
}

/**
 * The terminal's side of printing: output that arrives while the prompt waits for a line
 * (progress, answers from the worker) goes above it, and the prompt comes back below with
 * whatever was being typed. Piped output is plain lines.
 */
type Screen = ReturnType<typeof createScreen>;

function createScreen(output: Writable, interactive: boolean) {
  /** The prompt is on screen, waiting for a line. */
  let waitingOn: Interface | undefined;
  /** The message printed last, as it reads now: the next update of it may only add lines. */
  let last: { ts: string; text: string } | undefined;
  /** Each message as last printed (at most SHOWN_MESSAGES, the oldest forgotten first). */
  const shownTexts = new Map<string, string>();
  return {
    /** Prints `text`; `block` names the message it shows, if it is one (anything else ends that). */
    print(text: string, block?: { ts: string; text: string }): void {
      last = block;
      if (block) {
        shownTexts.delete(block.ts);
        shownTexts.set(block.ts, block.text);
        if (shownTexts.size > SHOWN_MESSAGES) shownTexts.delete(shownTexts.keys().next().value ?? '');
      }
      if (!waitingOn) {
        output.write(`${text}\n`);
        return;
      }
      clearLine(output, 0);
      cursorTo(output, 0);
      output.write(`${text}\n`);
      waitingOn.prompt(true);
    },
    /** The text of message `ts` as last printed, wherever it is on the screen. */
    shownText(ts: string): string | undefined {
      return shownTexts.get(ts);
    },
    /** The text of message `ts` if it is the last thing printed, else undefined. */
    lastBlock(ts: string): string | undefined {
      return last?.ts === ts ? last.text : undefined;
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
