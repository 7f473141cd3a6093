import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import '../../support/fuzz-seed.js';
import { commands } from '../../../src/commands/index.js';
import { handleAction, parseButtonValue } from '../../../src/bot/handle-action.js';
import type { JobRequests } from '../../../src/queue/job-requests.js';
import type { IncomingAction } from '../../../src/chat/adapter.js';
import type { ClusterAccess } from '../../../src/config/cluster-access.js';
import { parseCommand } from '../../../src/commands/parse-command.js';
import { actions } from '../../../src/remediation/actions/index.js';
import { buttonValue, PLAN_ID } from '../../../src/state/plan-store.js';

/**
 * What a chat user types and what a button press carries never crash the bot: random, huge, unicode
 * and injection-shaped input gets a valid parse or one clear sentence. Bounded: fast-check's default
 * 100 runs per property (200 where noted).
 */
const injection = fc.constantFrom(
  '"; DROP TABLE clusters; --',
  '$(rm -rf /)',
  '`reboot`',
  '<!channel> <@U123> <#C123|ops>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell-shaped input, on purpose
  '${jndi:ldap://127.0.0.1/a}',
  '{{ .Values }}',
  '\u0000\u202e\ufeff\u200b',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  '{"__proto__": {"polluted": true}}',
  '*\r\nKEYS *\r\n',
  'diagnose local\ndiagnose prod',
);

const word = fc.oneof(
  fc.constantFrom(...commands.map((c) => c.name), 'HEALTH', 'Diagnose', 'local', 'prod'),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  injection,
);
const commandText = fc.oneof(
  fc.array(word, { maxLength: 8 }).map((words) => words.join(' ')),
  fc.string({ unit: 'binary', maxLength: 500 }),
  fc.string({ maxLength: 20_000 }),
  fc
    .tuple(
      fc.constantFrom('health ', 'diagnose ', 'digest '),
      fc.string({ minLength: 5000, maxLength: 50_000 }),
    )
    .map(([a, b]) => a + b),
);

/** A reply a person can read: one short-ish line, no stack trace. */
const clear = (problem: string) =>
  problem.length > 0 && problem.length <= 600 && !/\bat .*\(.*:\d+:\d+\)/.test(problem);

describe('command parser under fuzzing', () => {
  it('any text: a known command with parsed args, or a clear problem; never a throw', () => {
    fc.assert(
      fc.property(commandText, (text) => {
        const parsed = parseCommand(text, commands);
        if (parsed.ok) {
          expect(commands).toContain(parsed.command);
          expect(parsed.command.name).toBe(text.trim().split(/\s+/)[0]?.toLowerCase());
        } else {
          expect(clear(parsed.problem)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

const PLAN = fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/);
const buttonText = fc.oneof(
  PLAN.map(buttonValue),
  fc.string({ maxLength: 3000 }),
  fc.json({ maxDepth: 3 }),
  fc
    .record({
      v: fc.oneof(fc.constant(1), fc.integer(), fc.string()),
      plan: fc.oneof(PLAN, fc.string(), injection),
    })
    .map((o) => JSON.stringify(o)),
  injection.map((i) => JSON.stringify({ v: 1, plan: i })),
  fc.constant(`{"v":1,"plan":"${'a'.repeat(100_000)}"}`),
  fc.constant('['.repeat(10_000)),
);

describe('button value parser under fuzzing', () => {
  it('returns a well-formed plan id or undefined; never a throw', () => {
    fc.assert(
      fc.property(buttonText, (value) => {
        const plan = parseButtonValue(value);
        if (plan !== undefined) expect(plan).toMatch(PLAN_ID);
      }),
      { numRuns: 200 },
    );
  });

  it('round-trips every plan id the store mints', () => {
    fc.assert(fc.property(PLAN, (id) => expect(parseButtonValue(buttonValue(id))).toBe(id)));
  });

  it('a click with any value asks the store only for well-formed ids and answers with a view', async () => {
    const refuse = (): never => {
      throw new Error('no job or cluster may be touched for an unknown plan');
    };
    const clusters: ClusterAccess = { names: () => [], config: refuse, get: refuse, allowedIn: refuse };
    const jobs = { check: refuse } as unknown as JobRequests;
    await fc.assert(
      fc.asyncProperty(buttonText, fc.string({ maxLength: 50 }), async (value, actionId) => {
        const asked: string[] = [];
        const plans = {
          load: async (id: string) => {
            asked.push(id);
            return { status: 'gone' as const };
          },
        };
        const click: IncomingAction = {
          actionId,
          value,
          channel: 'C111',
          user: 'U111',
          respond: async () => undefined,
        };
        const view = await handleAction(click, { clusters, jobs, plans });
        expect(view).toBeDefined();
        for (const id of asked) expect(id).toMatch(PLAN_ID);
      }),
    );
  });
});

describe("remediation actions' argument validation under fuzzing", () => {
  const args = fc.dictionary(
    fc.oneof(
      fc.constantFrom('member', 'cluster', 'depth', 'minutes', 'namespace', 'pod', 'node', '__proto__'),
      fc.string({ maxLength: 20 }),
    ),
    fc.oneof(fc.string({ maxLength: 200 }), injection, fc.string({ unit: 'grapheme', maxLength: 50 })),
    { maxKeys: 6 },
  );

  it.each(Object.keys(actions))('%s: a parsed plan or a clear error for any stored args', (id) => {
    const action = actions[id as keyof typeof actions];
    fc.assert(
      fc.property(args, (raw) => {
        const parsed = action.parse(raw);
        if (!parsed.ok) expect(clear(parsed.error)).toBe(true);
      }),
    );
  });
});
