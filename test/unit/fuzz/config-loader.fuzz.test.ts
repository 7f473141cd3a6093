import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import '../../support/fuzz-seed.js';
import { stringify } from 'yaml';
import { parseConfigText, parseEnv } from '../../../src/config/load-config.js';

/**
 * The config loader never crashes: random, huge, unicode and injection-shaped input gives either a
 * valid config or one line that names a field. Bounded: fast-check's default 100 runs per property.
 */
const injection = fc.constantFrom(
  '!!js/function "function(){ return 1 }"',
  '*anchor',
  '&a [*a, *a, *a]',
  '"; rm -rf / #',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell-shaped input, on purpose
  '${jndi:ldap://127.0.0.1/a}',
  '{{ .Values }}',
  '\u0000\u202e\ufeff',
  'http://[::1',
  '__proto__',
  '{"__proto__": {"polluted": true}}',
);

const oneLine = (error: string) =>
  !error.includes('\n') && error.length < 600 && !/\bat .*\(.*:\d+:\d+\)/.test(error);

describe('config loader under fuzzing', () => {
  it('arbitrary text: a config or one clear line, never a throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 2000 }), fc.string({ unit: 'binary', maxLength: 500 }), injection),
        (text) => {
          const parsed = parseConfigText(text, 'f.yaml');
          if (!parsed.ok) expect(oneLine(parsed.error)).toBe(true);
        },
      ),
    );
  });

  it('arbitrary YAML structures: errors name a path under clusters or the file', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 40 }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        injection,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(
          fc.oneof(
            fc.string({ maxLength: 12 }),
            fc.constantFrom('clusters', 'name', 'etcd', 'endpoints', '__proto__'),
          ),
          tie('node'),
          { maxKeys: 4 },
        ),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.record(
          {
            clusters: fc.array(fc.record({ name: value, etcd: value }, { requiredKeys: [] }), {
              maxLength: 3,
            }),
          },
          { requiredKeys: [] },
        ),
        (doc) => {
          const parsed = parseConfigText(stringify(doc), 'f.yaml');
          if (!parsed.ok) {
            expect(oneLine(parsed.error)).toBe(true);
            expect(parsed.error).toMatch(/^f\.yaml: (clusters|probes|[^:]+:)/);
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
    );
  });

  it('a huge file is parsed or refused without hanging', () => {
    const many = {
      clusters: Array.from({ length: 2000 }, (_, i) => ({
        name: `c${i}`,
        etcd: { endpoints: ['http://127.0.0.1:2379'] },
      })),
    };
    const parsed = parseConfigText(stringify(many), 'big.yaml');
    expect(parsed.ok).toBe(true);
    const bomb = `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`;
    const refused = parseConfigText(bomb, 'bomb.yaml');
    expect(refused.ok).toBe(false);
  });

  it('arbitrary environments: parsed or one line naming the variable', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('REDIS_URL', 'PORT', 'LOG_LEVEL', 'SLACK_API_URL', 'SLACK_BOT_TOKEN', 'OTHER'),
          fc.oneof(fc.string({ maxLength: 200 }), injection),
          { maxKeys: 6 },
        ),
        (env) => {
          const parsed = parseEnv(env);
          if (!parsed.ok) {
            expect(oneLine(parsed.error)).toBe(true);
            expect(parsed.error).toMatch(/^environment: [A-Z_]+: /);
          }
        },
      ),
    );
  });
});
