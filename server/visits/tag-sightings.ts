/**
 * Which tag sightings the recorder writes: a (tag, origin) pair at most once a minute per process, with
 * the pairs remembered bounded (cleared when full). Every tag-mode lookup passes here: per tag, then per
 * origin (no key string built per request), and the clock as a number. Was 0.6–1.7% of a tag-mode
 * lookup's CPU (--cpu-prof under `npm run bench -- identification`).
 */

const SIGHTING_RESOLUTION_MS = 60_000;
const SIGHTING_CACHE_LIMIT = 10_000;

export class SightingThrottle {
  /** When each (tag, origin) was last written, per tag; `pairs` counts them. */
  private readonly last = new Map<string, Map<string, number>>();
  private pairs = 0;

  /** Whether a sighting of the tag on `origin` at `t` (ms) is to be written; if so, remembered as written at `t`. */
  due(tagId: string, origin: string, t: number): boolean {
    let byOrigin = this.last.get(tagId);
    const last = byOrigin?.get(origin);
    if (last !== undefined && t - last < SIGHTING_RESOLUTION_MS) return false;
    if (this.pairs >= SIGHTING_CACHE_LIMIT) {
      this.last.clear();
      this.pairs = 0;
      byOrigin = undefined;
    }
    if (byOrigin === undefined) {
      byOrigin = new Map();
      this.last.set(tagId, byOrigin);
    }
    if (last === undefined) this.pairs++;
    byOrigin.set(origin, t);
    return true;
  }
}
