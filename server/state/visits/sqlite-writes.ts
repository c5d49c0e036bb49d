/**
 * The SQLite visit store's writes besides the count of a view (sqlite.ts): a raw view kept for the export
 * (inside the count's transaction, or on its own), a tag's sightings and an account's remembered segments,
 * each its own IMMEDIATE transaction. The rules they apply are store.ts's (raw-view ids, the sighting rule,
 * segments entered).
 */
import type Database from 'better-sqlite3';
import {
  enteredCount,
  formatSighting,
  nextRawViewId,
  ORIGINS_PER_TAG,
  parseSighting,
  type RawViewId,
  rawViewText,
  type SightingBounds,
  seenAgain,
  sightingVictim,
  type UncountedPageView,
} from './store.ts';

/** Keeps a raw view on the open write transaction: the customer's latest id is read under the lock, so ids only grow. */
export function rawKeeper(db: Database.Database): (view: UncountedPageView, first: boolean) => void {
  const lastRawId = db.prepare('SELECT ms, n FROM visit_events WHERE customer_id = ? ORDER BY ms DESC, n DESC LIMIT 1');
  const addRaw = db.prepare('INSERT INTO visit_events (customer_id, ms, n, day, view) VALUES (?, ?, ?, ?, ?)');
  return (view, first) => {
    const id = nextRawViewId((lastRawId.get(view.customer_id) as RawViewId | undefined) ?? null, Date.parse(view.at), Date.now());
    addRaw.run(view.customer_id, id.ms, id.n, view.day, rawViewText(view, first));
  };
}

/** A sighting in its own transaction (store.ts sightingVictim makes room in a full tag); true: a new origin. */
export function sightingWriter(db: Database.Database): (tagId: string, origin: string, at: string, bounds: SightingBounds) => boolean {
  // last_seen_at holds `<time>|<hits>` (store.ts SightingCell): the hits need no column of their own,
  // and ordering by it still orders by the time it starts with.
  const q = {
    get: db.prepare('SELECT last_seen_at FROM tag_sightings WHERE tag_id = ? AND origin = ?').pluck(),
    set: db.prepare('UPDATE tag_sightings SET last_seen_at = ? WHERE tag_id = ? AND origin = ?'),
    count: db.prepare('SELECT count(*) FROM tag_sightings WHERE tag_id = ?').pluck(),
    of: db.prepare('SELECT origin, last_seen_at FROM tag_sightings WHERE tag_id = ?'),
    delete: db.prepare('DELETE FROM tag_sightings WHERE tag_id = ? AND origin = ?'),
    add: db.prepare('INSERT INTO tag_sightings VALUES (?, ?, ?)'),
  };
  const sight = db.transaction((tagId: string, origin: string, at: string, bounds: SightingBounds) => {
    const seen = q.get.get(tagId, origin) as string | undefined;
    if (seen !== undefined) {
      q.set.run(formatSighting(seenAgain(parseSighting(seen), at)), tagId, origin);
      return false;
    }
    if ((q.count.get(tagId) as number) >= ORIGINS_PER_TAG) {
      const cells = (q.of.all(tagId) as { origin: string; last_seen_at: string }[]).map((r) => [r.origin, parseSighting(r.last_seen_at)] as const);
      const victim = sightingVictim(cells, bounds);
      if (victim === null) return false;
      q.delete.run(tagId, victim);
    }
    q.add.run(tagId, origin, formatSighting({ last_seen_at: at, hits: 1 }));
    return true;
  });
  return (tagId, origin, at, bounds) => sight.immediate(tagId, origin, at, bounds);
}

/**
 * Swaps an account's remembered segments (`ids`, a JSON array) and counts the segments entered on the UTC
 * day of `at`, in one transaction; answers the JSON remembered before (undefined: none).
 */
export function segmentsSwapper(db: Database.Database): (customerId: string, companyId: string, ids: string, at: string) => string | undefined {
  const get = db.prepare('SELECT segment_ids FROM visit_account_segments WHERE customer_id = ? AND company_id = ?').pluck();
  const set = db.prepare(
    `INSERT INTO visit_account_segments (customer_id, company_id, segment_ids, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (customer_id, company_id) DO UPDATE SET segment_ids = excluded.segment_ids, updated_at = excluded.updated_at`,
  );
  const entriesAdd = db.prepare(
    'INSERT INTO visit_segment_entries VALUES (?, ?, ?) ON CONFLICT (customer_id, day) DO UPDATE SET entries = entries + excluded.entries',
  );
  const swap = db.transaction((customerId: string, companyId: string, ids: string, at: string) => {
    const before = get.get(customerId, companyId) as string | undefined;
    set.run(customerId, companyId, ids, at);
    const entered = enteredCount(before === undefined ? null : (JSON.parse(before) as number[]), JSON.parse(ids) as number[]);
    if (entered > 0) entriesAdd.run(customerId, at.slice(0, 10), entered);
    return before;
  });
  return (customerId, companyId, ids, at) => swap.immediate(customerId, companyId, ids, at);
}
