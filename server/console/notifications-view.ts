/**
 * The Notifications page's form (ui/NotificationsPage.tsx): a user's email digest — off, daily or weekly,
 * the local hour and IANA time zone it is sent at, and which accounts it is about — as form fields, and
 * back as the `PATCH /auth/me/notifications` body. Pure, so the browser's zone list and defaults are
 * passed in (and tested) rather than read here.
 *
 * The settings' records are core/digest-records.ts's; only their types are imported (its zod schemas
 * stay out of the console's bundle), so the few values the form needs are written here.
 */
import type { DigestFrequency, DigestScope, DigestSettings, DigestSettingsPatch } from '../../core/digest-records.ts';
import type { Validated } from './ui/use-create-form.ts';

export const FREQUENCY_LABELS: Readonly<Record<DigestFrequency, string>> = {
  off: 'Off',
  daily: 'Daily',
  weekly: 'Weekly (Mondays)',
};

export type ScopeChoice = DigestScope['type'];
export const SCOPE_LABELS: Readonly<Record<ScopeChoice, string>> = {
  all: 'Every visiting account',
  my_accounts: 'My accounts (those I own in the CRM or the owners list)',
  segments: 'Accounts in some segments or lists',
};

export interface NotificationFields {
  digest: DigestFrequency;
  /** 0–23, as the select's value. */
  hour: string;
  time_zone: string;
  scope: ScopeChoice;
  segments: number[];
  lists: string[];
}

/** The zone a user who never chose one has (the server's default): the form proposes the browser's instead. */
const SERVER_DEFAULT_ZONE = 'UTC';

/**
 * The form of the saved settings. A digest that is off in the server's default zone was most likely never
 * set: the browser's zone is proposed (saved only when the user saves).
 */
export function notificationFields(settings: DigestSettings, browserZone: string | null): NotificationFields {
  const untouched = settings.digest === 'off' && settings.time_zone === SERVER_DEFAULT_ZONE;
  return {
    digest: settings.digest,
    hour: String(settings.hour),
    time_zone: untouched && browserZone ? browserZone : settings.time_zone,
    scope: settings.scope.type,
    segments: settings.scope.type === 'segments' ? [...settings.scope.segments] : [],
    lists: settings.scope.type === 'segments' ? [...settings.scope.lists] : [],
  };
}

/** The PATCH body of the form (every field: the form shows them all), or the first field that is wrong. */
export function notificationsPatch(f: NotificationFields): Validated<NotificationFields, DigestSettingsPatch> {
  const hour = Number(f.hour);
  if (!/^\d{1,2}$/.test(f.hour) || hour > 23) return { ok: false, field: 'hour', message: 'Choose an hour from 00:00 to 23:00.' };
  if (!f.time_zone.trim()) return { ok: false, field: 'time_zone', message: 'Choose a time zone.' };
  let scope: DigestScope;
  if (f.scope === 'segments') {
    if (f.segments.length + f.lists.length === 0) return { ok: false, field: 'scope', message: 'Choose at least one segment or list, or another scope.' };
    scope = { type: 'segments', segments: f.segments, lists: f.lists };
  } else scope = { type: f.scope };
  return { ok: true, body: { digest: f.digest, hour, time_zone: f.time_zone, scope } };
}

/** `7` → `07:00`. */
export const hourLabel = (hour: number): string => `${String(hour).padStart(2, '0')}:00`;

export const HOUR_OPTIONS: readonly (readonly [string, string])[] = Array.from({ length: 24 }, (_, h) => [String(h), hourLabel(h)] as const);

/**
 * The zones of the select: the runtime's IANA zones (`Intl.supportedValuesOf('timeZone')`), with the saved
 * and the browser's zone added when the list lacks them (an alias such as `UTC` the server accepts), sorted.
 */
export function timeZoneOptions(supported: readonly string[], ...always: (string | null)[]): string[] {
  const zones = new Set(supported);
  for (const z of always) if (z) zones.add(z);
  return [...zones].sort((a, b) => a.localeCompare(b));
}

/** What the saved settings mean, in one sentence (the page's status line). */
export function digestSummary(s: DigestSettings, segmentName: (id: number) => string, listName: (id: string) => string): string {
  if (s.digest === 'off') return 'You get no digest mails.';
  const when = s.digest === 'daily' ? 'every day' : 'every Monday';
  const about =
    s.scope.type === 'all'
      ? 'every visiting account'
      : s.scope.type === 'my_accounts'
        ? 'the accounts you own'
        : `accounts in ${[...s.scope.segments.map(segmentName), ...s.scope.lists.map(listName)].join(', ')}`;
  return `A ${s.digest} digest ${when} at ${hourLabel(s.hour)} (${s.time_zone}), about ${about}.`;
}

/** The browser's zone, or null when it cannot say. */
export function browserTimeZone(): string | null {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
}

/** The runtime's IANA zones; [] where `Intl.supportedValuesOf` is missing (the saved and browser zones are still offered). */
export function supportedTimeZones(): string[] {
  const intl = Intl as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

/** The preview of the digest the signed-in user would get (its HTML), opened in a new tab. */
export const PREVIEW_URL = '/auth/me/digest/preview';
