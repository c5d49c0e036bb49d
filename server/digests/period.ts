/**
 * When a digest is due and which period it covers, in the user's time zone (pure; the clock is passed in).
 * A daily digest is sent on each local day D from the configured hour on, about the local day before D; a
 * weekly one on Mondays from the hour on, about the local week (Monday to Sunday) before. It may be sent
 * until D ends (a mail server that is down is retried until then), never before the hour. A period is
 * named by its kind and its first local date (`day:2026-03-14`, `week:2026-03-09`): one claim per user and
 * name, whatever node or time zone change comes after.
 *
 * Local times come from Intl (the runtime's IANA data); a local midnight is found from the zone's offset
 * at that instant (checked once more, for a midnight next to a daylight-saving change). An hour that a
 * change skips (02:00 in spring) is reached at the first local time past it.
 */
import type { DigestSettings } from '../../core/digest-records.ts';

const DAY_MS = 86_400_000;

export interface DigestPeriod {
  /** `day:YYYY-MM-DD` or `week:YYYY-MM-DD`: the claim's name. */
  key: string;
  kind: 'day' | 'week';
  /** The local dates the period runs over (inclusive). */
  first: string;
  last: string;
  /** [startMs, endMs): the period in epoch ms. */
  startMs: number;
  endMs: number;
  /** The end of the local day the digest is sent on: no attempt after it. */
  sendUntilMs: number;
}

export interface LocalTime {
  date: string;
  hour: number;
  /** 1 Monday … 7 Sunday. */
  weekday: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

/** The wall-clock fields of `ms` in `zone`. */
function wall(ms: number, zone: string): { y: number; m: number; d: number; h: number; min: number; s: number } {
  const parts: Record<string, number> = {};
  for (const p of format(zone).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, m: parts.month!, d: parts.day!, h: parts.hour! % 24, min: parts.minute!, s: parts.second! };
}

/** How far `zone`'s wall clock is ahead of UTC at `ms`. */
function offsetMs(ms: number, zone: string): number {
  const w = wall(ms, zone);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.min, w.s) - Math.floor(ms / 1000) * 1000;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function localTime(ms: number, zone: string): LocalTime {
  const w = wall(ms, zone);
  const date = isoDate(Date.UTC(w.y, w.m - 1, w.d));
  const weekday = ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
  return { date, hour: w.h, weekday };
}

/** The calendar date `days` after `date` (YYYY-MM-DD). */
export const addDays = (date: string, days: number) => isoDate(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS);

/** The instant a local date begins in `zone`. */
export function localMidnight(date: string, zone: string): number {
  const utc = Date.parse(`${date}T00:00:00Z`);
  const first = utc - offsetMs(utc, zone);
  const second = utc - offsetMs(first, zone);
  return second;
}

function period(kind: 'day' | 'week', first: string, sendDay: string, zone: string): DigestPeriod {
  const last = addDays(first, kind === 'day' ? 0 : 6);
  return {
    key: `${kind}:${first}`,
    kind,
    first,
    last,
    startMs: localMidnight(first, zone),
    endMs: localMidnight(addDays(last, 1), zone),
    sendUntilMs: localMidnight(addDays(sendDay, 1), zone),
  };
}

/** The period whose digest is due at `nowMs`, or null (digests off, before the hour, a weekly one off Monday). */
export function duePeriod(settings: DigestSettings, nowMs: number): DigestPeriod | null {
  if (settings.digest === 'off') return null;
  const now = localTime(nowMs, settings.time_zone);
  if (now.hour < settings.hour) return null;
  if (settings.digest === 'daily') return period('day', addDays(now.date, -1), now.date, settings.time_zone);
  return now.weekday === 1 ? period('week', addDays(now.date, -7), now.date, settings.time_zone) : null;
}

/** The last complete period of a kind at `nowMs` (`svc digest send`: yesterday, or last Monday to Sunday), sendable today. */
export function lastPeriod(kind: 'day' | 'week', zone: string, nowMs: number): DigestPeriod {
  const now = localTime(nowMs, zone);
  if (kind === 'day') return period('day', addDays(now.date, -1), now.date, zone);
  return period('week', addDays(now.date, -(now.weekday - 1) - 7), now.date, zone);
}

/** The period of a kind that holds a local date (a week: the one from the Monday on or before it): a preview of any period. */
export function periodHolding(kind: 'day' | 'week', date: string, zone: string): DigestPeriod {
  const weekday = ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
  const first = kind === 'day' ? date : addDays(date, -(weekday - 1));
  return period(kind, first, addDays(first, kind === 'day' ? 1 : 7), zone);
}
