import type { z } from 'zod';
import { closest } from '../suggest.js';
import type { ChatCommand } from './command.js';

export type ParsedCommand =
  | { ok: true; command: ChatCommand; args: unknown }
  | { ok: false; problem: string; command: ChatCommand | undefined };

/**
 * `health prod` -> the health command with `{ cluster: 'prod' }`, or what is wrong with the words.
 * `onlyCluster` names the one cluster the channel may use, where it may use one only: a command that
 * `defaultsToOnlyCluster`, typed without its cluster (`diagnose`), means that one.
 */
export function parseCommand(
  text: string,
  commands: readonly ChatCommand[],
  onlyCluster: () => string | undefined = () => undefined,
): ParsedCommand {
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
  let words = rest;
  let parsed = command.args.safeParse(words);
  if (!parsed.success && command.defaultsToOnlyCluster && argumentProblem(parsed.error, words) === MISSING) {
    const only = onlyCluster();
    if (only !== undefined) {
      words = [...rest, only];
      parsed = command.args.safeParse(words);
    }
  }
  if (!parsed.success) return { ok: false, problem: argumentProblem(parsed.error, words), command };
  return { ok: true, command, args: parsed.data };
}

const MISSING = 'an argument is missing';

function argumentProblem(error: z.ZodError, words: string[]): string {
  const issue = error.issues[0];
  if (issue?.code === 'too_small' || (issue?.code === 'invalid_union' && words.length === 0)) return MISSING;
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
