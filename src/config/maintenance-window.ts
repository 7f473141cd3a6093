/**
 * A maintenance window (`clusters[].maintenance.defrag.window`): days and a time span in UTC,
 * `sun 02:00-04:00`, `mon-fri 01:00-02:30`, `sat,sun 23:00-01:00` (it may cross midnight; the
 * days name the day it opens), or `daily 03:00-04:00`. UTC only: a window never moves with DST.
 */
export interface MaintenanceWindow {
  /** Days of the week it opens on, 0 = Sunday (as cron counts them). */
  days: number[];
  /** Minutes after midnight UTC. */
  startMinute: number;
  durationMinutes: number;
  /** The text it was read from, for messages. */
  text: string;
}

export type ParseWindowResult = { ok: true; window: MaintenanceWindow } | { ok: false; error: string };

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const DAY_MS = 24 * 3600_000;
const DAY_MINUTES = 24 * 60;
const SHAPE = /^\s*([a-z,-]+)\s+(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$/i;

export const WINDOW_USAGE =
  'must read "<days> HH:MM-HH:MM" in UTC, e.g. "sun 02:00-04:00", "mon-fri 01:00-02:30" or "daily 03:00-04:00" (days: daily, or mon..sun in a list or range)';

/** Reads a window; a bad one gets a reason a person can act on. */
export function parseMaintenanceWindow(text: string): ParseWindowResult {
  const match = SHAPE.exec(text);
  if (!match) return { ok: false, error: WINDOW_USAGE };
  const [, dayText = '', h1 = '', m1 = '', h2 = '', m2 = ''] = match;
  const days = parseDays(dayText.toLowerCase());
  if (typeof days === 'string') return { ok: false, error: `${days}; ${WINDOW_USAGE}` };
  const start = minuteOf(h1, m1);
  const end = minuteOf(h2, m2);
  if (start === undefined || end === undefined || start === DAY_MINUTES)
    return { ok: false, error: `${text.trim()} has a time that is not HH:MM between 00:00 and 24:00` };
  if (start === end)
    return { ok: false, error: `${text.trim()} opens and closes at the same time; give it a length` };
  const durationMinutes = end > start ? end - start : end + DAY_MINUTES - start;
  return { ok: true, window: { days, startMinute: start, durationMinutes, text: text.trim() } };
}

function minuteOf(h: string, m: string): number | undefined {
  const hour = Number(h);
  const minute = Number(m);
  if (minute > 59 || hour > 24 || (hour === 24 && minute > 0)) return undefined;
  return hour * 60 + minute;
}

function parseDays(text: string): number[] | string {
  if (text === 'daily') return [0, 1, 2, 3, 4, 5, 6];
  const days = new Set<number>();
  for (const part of text.split(',')) {
    const [from, to, extra] = part.split('-');
    const a = dayIndex(from);
    const b = to === undefined ? a : dayIndex(to);
    if (a === undefined || b === undefined || extra !== undefined) return `"${part}" is not a day`;
    // mon-fri; fri-mon wraps over the weekend.
    for (let d = a; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === b) break;
    }
  }
  return [...days].sort((x, y) => x - y);
}

function dayIndex(name: string | undefined): number | undefined {
  const i = DAY_NAMES.indexOf((name ?? '') as (typeof DAY_NAMES)[number]);
  return i < 0 ? undefined : i;
}

/** The window's occurrence that is open at `nowMs` (epoch ms), or undefined when it is closed. */
export function openWindowAt(
  nowMs: number,
  w: MaintenanceWindow,
): { startMs: number; endMs: number } | undefined {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  // An occurrence that opened yesterday may still be open (it crosses midnight, or lasts 24 h).
  for (const day of [today, today - DAY_MS]) {
    if (!w.days.includes(new Date(day).getUTCDay())) continue;
    const startMs = day + w.startMinute * 60_000;
    const endMs = startMs + w.durationMinutes * 60_000;
    if (nowMs >= startMs && nowMs < endMs) return { startMs, endMs };
  }
  return undefined;
}

/** The cron pattern (in UTC) of the window's opening, for a BullMQ job scheduler: `0 2 * * 0`. */
export function windowCronPattern(w: MaintenanceWindow): string {
  const days = w.days.length === 7 ? '*' : w.days.join(',');
  return `${w.startMinute % 60} ${Math.floor(w.startMinute / 60) % 24} * * ${days}`;
}
