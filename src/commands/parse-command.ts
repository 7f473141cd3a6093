import type { z } from 'zod';
import { closest } from '../suggest.js';
import type { ChatCommand } from './command.js';

export type ParsedCommand =
  | { ok: true; command: ChatCommand; args: unknown }
  | { ok: false; problem: string; command: ChatCommand | undefined };

/** `health prod` -> the health command with `{ cluster: 'prod' }`, or what is wrong with the words. */
export function parseCommand(text: string, commands: readonly ChatCommand[]): ParsedCommand {
  const [first, ...rest] = text.trim().split(/\s+/).filter(Boolean);
  if (first === undefined) return { ok: false, problem: 'no command given', command: undefined };
  const name = first.toLowerCase();
  const command = commands.find((c) => c.name === name);
  if (!command) {
    // A typo gets the command it most likely meant, and that command's usage instead of the whole list.
    const meant = commands.find(
      (c) =>
        c.name ===
        closest(
          name,
          commands.map((c) => c.name),
        ),
    );
    const problem = `unknown command "${excerpt(first)}"${meant ? `: did you mean \`${meant.name}\`?` : ''}`;
    return { ok: false, problem, command: meant };
  }
  const parsed = command.args.safeParse(rest);
  if (!parsed.success) return { ok: false, problem: argumentProblem(parsed.error, rest), command };
  return { ok: true, command, args: parsed.data };
}

function argumentProblem(error: z.ZodError, words: string[]): string {
  const issue = error.issues[0];
  if (issue?.code === 'too_small' || (issue?.code === 'invalid_union' && words.length === 0))
    return 'an argument is missing';
  if (issue?.code === 'too_big' || issue?.code === 'invalid_union')
    return `too many arguments (${excerpt(words.join(' '))})`;
  return issue?.message ?? 'invalid arguments';
}

/** Refusals quote what was typed; a pasted log must not come back as a wall of text. */
const MAX_ECHO_CHARS = 80;

function excerpt(text: string): string {
  const chars = [...text];
  return chars.length <= MAX_ECHO_CHARS ? text : `${chars.slice(0, MAX_ECHO_CHARS).join('')}…`;
}

/** The usage lines every refusal ends with. */
export function usageLines(commands: readonly ChatCommand[]): string[] {
  return commands.map((c) => `\`/etcd ${c.usage}\`  ${c.summary}`);
}
