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

  it("takes the channel's only cluster for a command typed without it, and asks for it only then", () => {
    let asked = 0;
    const only = () => {
      asked += 1;
      return 'prod';
    };
    expect(parseCommand('diagnose', commands, only)).toMatchObject({ ok: true, args: { cluster: 'prod' } });
    expect(asked).toBe(1);
    expect(parseCommand('diagnose staging', commands, only)).toMatchObject({ args: { cluster: 'staging' } });
    expect(parseCommand('diagnose a b', commands, only)).toMatchObject({
      ok: false,
      problem: 'too many arguments (a b)',
    });
    // A command that is complete, or takes no cluster, never asks.
    expect(parseCommand('clusters', commands, only)).toMatchObject({ ok: true });
    expect(asked).toBe(1);
  });

  it('still says an argument is missing where the channel may use several clusters, or none', () => {
    expect(parseCommand('diagnose', commands, () => undefined)).toMatchObject({
      ok: false,
      problem: 'an argument is missing',
      command: { name: 'diagnose' },
    });
    expect(parseCommand('diagnose', commands)).toMatchObject({
      ok: false,
      problem: 'an argument is missing',
    });
  });
});
