import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli.js';

/**
 * Every `etcd-doctor …` command line the README and docs/ show (in code spans and code blocks) names
 * a command the CLI has, with options it takes (issue 42: examples drifted from the real product).
 * The walkthroughs' outputs are checked where they run: the NOSPACE walkthrough by the demo test.
 */
const ROOT = join(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/**
 * `etcd-doctor <words>` in a code span, at the start of a shell block's line, or after `$ ` in any
 * block (a text block's other lines are output). `health|diagnose` stands for both.
 */
function documentedCommands(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/`(etcd-doctor [^`]+)`/g)) found.push(m[1] ?? '');
  for (const block of text.matchAll(/```([a-z]*)\n([\s\S]*?)```/g))
    for (const line of (block[2] ?? '').split('\n')) {
      const prompt =
        block[1] === 'sh' || block[1] === 'bash' ? /^(?:\$ )?(etcd-doctor [^#]*)/ : /^\$ (etcd-doctor [^#]*)/;
      const cmd = prompt.exec(line.trim())?.[1];
      if (cmd) found.push(cmd);
    }
  return found.flatMap((c) => {
    const [, sub = '', ...rest] = c.replace(/\\$/, '').trim().split(/\s+/);
    return sub.split('|').map((s) => ['etcd-doctor', s, ...rest].join(' '));
  });
}

function optionNames(command: Command): Set<string> {
  return new Set(command.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x))));
}

describe('the command lines the docs show', () => {
  const program = buildProgram({ argv: [], env: {}, stdout: () => {}, stderr: () => {} }, () => {});
  const commands = new Map(program.commands.map((c) => [c.name(), c]));
  const global = optionNames(program);

  const all = PAGES.flatMap((page) =>
    documentedCommands(readFileSync(join(ROOT, page), 'utf8')).map((line) => ({ page, line })),
  );

  it('finds them (the README and docs/ show dozens)', () => {
    expect(all.length).toBeGreaterThan(30);
  });

  it('each names a command of the CLI, with options that command takes', () => {
    const wrong: string[] = [];
    for (const { page, line } of all) {
      const [, sub = '', ...rest] = line.split(/\s+/);
      if (sub.startsWith('-')) {
        if (!global.has(sub)) wrong.push(`${page}: ${line} (no global option ${sub})`);
        continue;
      }
      const command = commands.get(sub);
      if (!command) {
        wrong.push(`${page}: ${line} (no command "${sub}")`);
        continue;
      }
      const known = new Set([...optionNames(command), ...global, '--help', '-h']);
      for (const word of rest) {
        const flag = /^(--?[A-Za-z][\w-]*)/.exec(word)?.[1];
        if (flag && !known.has(flag)) wrong.push(`${page}: ${line} (no option ${flag} for ${sub})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
