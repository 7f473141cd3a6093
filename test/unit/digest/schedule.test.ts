import { describe, expect, it } from '@jest/globals';
import {
  cronPattern,
  isTimeZone,
  parseTimeOfDay,
  slotAfter,
  slotAtOrBefore,
} from '../../../src/digest/schedule.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('daily digest slots in an IANA time zone', () => {
  const paris = { hour: 9, minute: 0, tz: 'Europe/Paris' };

  it('finds the last and next 09:00 Paris time, across the spring DST change', () => {
    expect(iso(slotAtOrBefore(Date.parse('2024-05-01T06:59:00Z'), paris))).toBe('2024-04-30T07:00:00.000Z');
    expect(iso(slotAtOrBefore(Date.parse('2024-05-01T07:00:00Z'), paris))).toBe('2024-05-01T07:00:00.000Z');
    expect(iso(slotAfter(Date.parse('2024-05-01T07:00:00Z'), paris))).toBe('2024-05-02T07:00:00.000Z');
    expect(iso(slotAtOrBefore(Date.parse('2024-03-31T06:00:00Z'), paris))).toBe('2024-03-30T08:00:00.000Z');
    expect(iso(slotAfter(Date.parse('2024-03-31T06:00:00Z'), paris))).toBe('2024-03-31T07:00:00.000Z');
  });

  it('parses times and zones, and gives BullMQ a cron pattern', () => {
    expect(parseTimeOfDay('09:00')).toEqual({ hour: 9, minute: 0 });
    expect(parseTimeOfDay('24:00')).toBeUndefined();
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(cronPattern({ hour: 9, minute: 5, tz: 'UTC' })).toBe('5 9 * * *');
  });
});
