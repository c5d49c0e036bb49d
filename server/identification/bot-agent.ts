/**
 * Bot detection of a visitor's User-Agent (isbot), remembered per User-Agent string. isbot runs one
 * large regular expression over the string, ~2–3% of a tag-mode lookup's CPU (--cpu-prof under
 * `npm run bench -- identification`); real traffic repeats a few thousand browser strings, so a bounded
 * map answers almost every lookup. Bounded (server/cache/bounded-cache.ts): clients sending endless distinct strings cannot grow memory.
 */
import { isbot } from 'isbot';
import { boundedMemo } from '../cache/bounded-cache.ts';

/** Longer strings are classified every time (a cache key that large would cost more than it saves). */
const MAX_KEY = 512;
const knownBot = boundedMemo(isbot, 10_000);

export function isBotAgent(userAgent: string | undefined): boolean {
  if (userAgent === undefined || userAgent.trim() === '') return false;
  return userAgent.length > MAX_KEY ? isbot(userAgent) : knownBot(userAgent);
}
