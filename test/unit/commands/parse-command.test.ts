import { describe, expect, it } from '@jest/globals';
import { commands } from '../../../src/commands/index.js';
import { parseCommand } from '../../../src/commands/parse-command.js';

describe('parseCommand', () => {
  it('parses a command and its cluster', () => {
    const parsed = parseCommand('  Diagnose   prod ', commands);
    expect(parsed).toMatchObject({ ok: true, command: { name: 'diagnose' }, args: { cluster: 'prod' } });
  });

  it('names an unknown command', () => {
    expect(parseCommand('restart prod', commands)).toMatchObject({
      ok: false,
      problem: 'unknown command "restart"',
      command: undefined,
    });
  });

  it('a typo names the command it most likely meant, and offers its usage only (issue 42)', () => {
    expect(parseCommand('helth prod', commands)).toMatchObject({
      ok: false,
      problem: 'unknown command "helth": did you mean `health`?',
      command: { name: 'health' },
    });
    expect(parseCommand('diagnsoe prod', commands)).toMatchObject({ command: { name: 'diagnose' } });
  });

  it('says when nothing was typed', () => {
    expect(parseCommand('   ', commands)).toMatchObject({ ok: false, problem: 'no command given' });
  });

  it('says an argument is missing, for the command that needs it', () => {
    expect(parseCommand('health', commands)).toMatchObject({
      ok: false,
      problem: 'an argument is missing',
      command: { name: 'health' },
    });
  });

  it('refuses extra words', () => {
    expect(parseCommand('status prod', commands)).toMatchObject({
      ok: false,
      problem: 'too many arguments (prod)',
    });
    expect(parseCommand('health a b', commands)).toMatchObject({ ok: false, command: { name: 'health' } });
  });

  it('takes an optional word for help', () => {
    expect(parseCommand('help', commands)).toMatchObject({ ok: true, args: { word: undefined } });
    expect(parseCommand('help diagnose', commands)).toMatchObject({ ok: true, args: { word: 'diagnose' } });
  });
});
