/**
 * Words of the account page's engagement (pure): engaged time as people read a duration, and a custom
 * event's properties on one line.
 */
import type { PropertyValue } from '../../core/engagement-records.ts';

/** `45 s`, `2 min 5 s`, `1 h 3 min` (seconds dropped past an hour), `0 s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return s % 60 > 0 ? `${m} min ${s % 60} s` : `${m} min`;
}

/** `plan: pro · seats: 5 · trial: true`; '' for none. */
export function propertiesText(properties: Readonly<Record<string, PropertyValue>>): string {
  return Object.entries(properties)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(' · ');
}
