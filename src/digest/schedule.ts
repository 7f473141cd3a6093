/** A daily digest time in an IANA time zone: `09:00 Europe/Paris`. */
export interface DailySchedule {
  hour: number;
  minute: number;
  tz: string;
}

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** `09:00` -> { hour: 9, minute: 0 }, or undefined. */
export function parseTimeOfDay(text: string): { hour: number; minute: number } | undefined {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match) return undefined;
  return { hour: Number(match[1]), minute: Number(match[2]) };
}

export function formatTimeOfDay(s: Pick<DailySchedule, 'hour' | 'minute'>): string {
  return `${String(s.hour).padStart(2, '0')}:${String(s.minute).padStart(2, '0')}`;
}

/** The cron pattern BullMQ's job scheduler takes, with `tz` beside it: minute hour * * *. */
export function cronPattern(s: DailySchedule): string {
  return `${s.minute} ${s.hour} * * *`;
}

/** The tz's offset from UTC at `atMs`, in ms (Paris in summer: +7,200,000). */
function offsetMs(atMs: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(atMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return asUtc - Math.floor(atMs / 1000) * 1000;
}

/** The local calendar date in `tz` at `atMs`. */
function localDate(atMs: number, tz: string): { y: number; m: number; d: number } {
  const local = new Date(atMs + offsetMs(atMs, tz));
  return { y: local.getUTCFullYear(), m: local.getUTCMonth(), d: local.getUTCDate() };
}

/** Epoch ms of HH:MM local time in `tz` on a calendar day (a time skipped by DST moves forward). */
function atLocal(day: { y: number; m: number; d: number }, s: DailySchedule): number {
  const guess = Date.UTC(day.y, day.m, day.d, s.hour, s.minute);
  const first = guess - offsetMs(guess, s.tz);
  return guess - offsetMs(first, s.tz);
}

/** The most recent slot at or before `nowMs`. */
export function slotAtOrBefore(nowMs: number, s: DailySchedule): number {
  const today = localDate(nowMs, s.tz);
  const slot = atLocal(today, s);
  if (slot <= nowMs) return slot;
  const yesterday = localDate(slot - 12 * 3600_000 - (s.hour * 60 + s.minute) * 60_000, s.tz);
  return atLocal(yesterday, s);
}

/** The first slot strictly after `nowMs`. */
export function slotAfter(nowMs: number, s: DailySchedule): number {
  const last = slotAtOrBefore(nowMs, s);
  const next = atLocal(localDate(last + 24 * 3600_000, s.tz), s);
  // A day shortened by DST can leave `last + 24 h` on the same local date.
  return next > last ? next : atLocal(localDate(last + 30 * 3600_000, s.tz), s);
}
