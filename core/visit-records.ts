/**
 * The visit records the console shows as the server answers them: page views per day, an account's
 * recent sessions, the origins a tag was seen on. Wire and storage shapes, so they live in the neutral
 * core (the console's bundle imports them from here); the visit store and its rules over them are
 * server/state/visits/.
 */
import type { UnidentifiedReason } from './vocabulary.ts';

/** Identified and anonymous page views of one UTC day. */
export interface DailyTotals {
  day: string;
  identified: number;
  anonymous: number;
}

/** One session of an account: its pages in the order they were viewed (the first-party journey). */
export interface AccountSession {
  session_id: string;
  /** Time of its first and latest view. */
  first_seen: string;
  last_seen: string;
  /** Every view of the session, those past PAGES_PER_SESSION (server/state/visits/store.ts) included. */
  page_views: number;
  /** The first PAGES_PER_SESSION views, oldest first. */
  pages: { at: string; path: string }[];
}

/** A tag seen used from an origin, and when last. */
export interface TagSighting {
  tag_id: string;
  origin: string;
  last_seen_at: string;
}

/**
 * The anonymous page views of one UTC day by why they matched no company (core/vocabulary.ts
 * UNIDENTIFIED_REASONS); every reason present, zeros included.
 */
export interface DailyUnidentified {
  day: string;
  reasons: Record<UnidentifiedReason, number>;
}
