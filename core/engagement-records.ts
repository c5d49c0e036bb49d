/**
 * What the web tag reports beyond page views, and what svc keeps of it per account: engaged time (how long
 * a page was visible, per path and UTC day) and custom events (`svc('track', name, properties)`, counted
 * per name and UTC day, the latest few kept with their properties for the account's journey).
 *
 * In the neutral core: the beacon's validation (server/visits/beacon.ts), the state store
 * (server/state/engagement/), segment rules (./customer-records.ts `engaged`, `event`) and the console read
 * the same names and bounds.
 */
import { z } from 'zod';

/** A custom event's name: lower case, starting with a letter, `_` between words (`demo_requested`). */
export const EVENT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const EventName = z.string().regex(EVENT_NAME_PATTERN, 'an event name is 1–64 characters of a–z, 0–9 and _, starting with a letter (demo_requested)');

/** A property's name (`plan`, `seatCount`, `utm_campaign`). */
export const PROPERTY_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
/** Properties one event carries at most. */
export const MAX_EVENT_PROPERTIES = 10;
/** Characters of one string value at most. */
export const MAX_PROPERTY_VALUE_LENGTH = 200;

/** One property value: flat (no object, no array), a bounded string, a finite number or a boolean. */
export const PropertyValue = z.union([
  z.string().max(MAX_PROPERTY_VALUE_LENGTH, `a string value is at most ${MAX_PROPERTY_VALUE_LENGTH} characters`),
  z.number(),
  z.boolean(),
]);
export type PropertyValue = z.infer<typeof PropertyValue>;

export const EventProperties = z
  .record(z.string(), PropertyValue)
  .refine((p) => Object.keys(p).length <= MAX_EVENT_PROPERTIES, `at most ${MAX_EVENT_PROPERTIES} properties`)
  // The names checked here rather than as the record's key schema: its message names the rule, not "Invalid key in record".
  .refine((p) => Object.keys(p).every((k) => PROPERTY_NAME_PATTERN.test(k)), 'a property name is 1–40 letters, digits or _, starting with a letter');
export type EventProperties = z.infer<typeof EventProperties>;

/** One account's engaged time on a path on a UTC day. */
export interface EngagedTime {
  day: string;
  path: string;
  /** Milliseconds the page was visible, summed over the beacons of the day. */
  ms: number;
}

/** One account's count of a custom event on a UTC day. */
export interface EventCount {
  day: string;
  name: string;
  count: number;
}

/** What one account did on the customer's pages between two days: engaged time and custom events. */
export interface AccountEngagement {
  time: EngagedTime[];
  events: EventCount[];
}

/** One of an account's latest custom events, with what it carried (properties scrubbed: server/visits/custom-event.ts). */
export interface RecentEvent {
  at: string;
  name: string;
  path: string;
  properties: EventProperties;
}

/** Engaged time and custom events of one account as the account page and webhooks show them. */
export interface EngagementSummary {
  /** The UTC days summed (the page's range, or the last `days` days). */
  from: string;
  to: string;
  engaged_seconds: number;
  /** Per path (query strings collapsed), most engaged first. */
  pages: { path: string; engaged_seconds: number }[];
  /** Per event name, most counted first. */
  events: { name: string; count: number }[];
  /** The latest custom events, newest first. */
  recent_events: RecentEvent[];
}
