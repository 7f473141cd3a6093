import { describe, expect, it } from '@jest/globals';
import { parseConfigText } from '../../../src/config/load-config.js';
import {
  openWindowAt,
  parseMaintenanceWindow,
  windowCronPattern,
} from '../../../src/config/maintenance-window.js';

const window = (text: string) => {
  const parsed = parseMaintenanceWindow(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.window;
};

describe('maintenance windows', () => {
  it('reads days, lists, ranges and a span crossing midnight, as cron patterns in UTC', () => {
    expect(windowCronPattern(window('sun 02:00-04:00'))).toBe('0 2 * * 0');
    expect(windowCronPattern(window('mon-fri 01:30-02:00'))).toBe('30 1 * * 1,2,3,4,5');
    expect(windowCronPattern(window('sat,sun 23:00-01:00'))).toBe('0 23 * * 0,6');
    expect(windowCronPattern(window('daily 03:00-04:00'))).toBe('0 3 * * *');
    expect(window('fri-mon 00:00-24:00')).toMatchObject({ days: [0, 1, 5, 6], durationMinutes: 1440 });
  });

  it('is open from its start to its close, also past midnight on the next day', () => {
    const w = window('sat 23:00-01:00');
    // 2026-12-05 is a Saturday.
    expect(openWindowAt(Date.parse('2026-12-05T22:59:59Z'), w)).toBeUndefined();
    expect(openWindowAt(Date.parse('2026-12-05T23:00:00Z'), w)).toEqual({
      startMs: Date.parse('2026-12-05T23:00:00Z'),
      endMs: Date.parse('2026-12-06T01:00:00Z'),
    });
    expect(openWindowAt(Date.parse('2026-12-06T00:59:00Z'), w)?.startMs).toBe(
      Date.parse('2026-12-05T23:00:00Z'),
    );
    expect(openWindowAt(Date.parse('2026-12-06T01:00:00Z'), w)).toBeUndefined();
    // Sunday 23:00 is not a Saturday.
    expect(openWindowAt(Date.parse('2026-12-06T23:30:00Z'), w)).toBeUndefined();
  });

  it('says what is wrong with a bad window', () => {
    expect(parseMaintenanceWindow('sunday 2am')).toEqual({
      ok: false,
      error: expect.stringMatching(/^must read "<days> HH:MM-HH:MM" in UTC, e.g. "sun 02:00-04:00"/),
    });
    expect(parseMaintenanceWindow('sun,funday 02:00-04:00')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^"funday" is not a day; must read/),
    });
    expect(parseMaintenanceWindow('sun 25:00-26:00')).toMatchObject({
      ok: false,
      error: 'sun 25:00-26:00 has a time that is not HH:MM between 00:00 and 24:00',
    });
    expect(parseMaintenanceWindow('sun 02:00-02:00')).toMatchObject({
      ok: false,
      error: 'sun 02:00-02:00 opens and closes at the same time; give it a length',
    });
  });

  it('a bad window or one without a channel is a one-line config error naming the field', () => {
    const base = 'clusters:\n  - name: a\n    etcd: { endpoints: [http://127.0.0.1:2379] }\n';
    expect(
      parseConfigText(
        `${base}    slack: { channel: C0OPS }\n    maintenance: { defrag: { window: "sun 2-4" } }\n`,
        'f.yaml',
      ),
    ).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^f\.yaml: clusters\[0\]\.maintenance\.defrag\.window: must read "<days> HH:MM-HH:MM"/,
      ),
    });
    expect(
      parseConfigText(`${base}    maintenance: { defrag: { window: "sun 02:00-04:00" } }\n`, 'f.yaml'),
    ).toEqual({
      ok: false,
      error:
        'f.yaml: clusters[0].maintenance.defrag.window: needs slack.channel: the window posts what it did there',
    });
    expect(parseConfigText(`${base}    maintenance: { defrag: { minFreeRatio: 10 } }\n`, 'f.yaml')).toEqual({
      ok: false,
      error:
        'f.yaml: clusters[0].maintenance.defrag.minFreeRatio: must be between 0 and 1, e.g. 0.1 for 10 %',
    });
    const ok = parseConfigText(
      `${base}    slack: { channel: C0OPS }\n    maintenance: { defrag: { window: "sun 02:00-04:00", minFreeBytes: 100000000 }, compactionIntervalSeconds: 600 }\n`,
      'f.yaml',
    );
    expect(ok.ok && ok.value.clusters[0]?.maintenance).toEqual({
      defrag: { window: 'sun 02:00-04:00', minFreeBytes: 100000000 },
      compactionIntervalSeconds: 600,
    });
  });
});
