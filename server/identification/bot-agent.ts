/**
 * Bot detection of a visitor's User-Agent (isbot), remembered per User-Agent string. isbot runs one
 * large regular expression over the string, ~2–3% of a tag-mode lookup's CPU (--cpu-prof under
 * `npm run bench -- identification`); real traffic repeats a few thousand browser strings, so a bounded
 * map answers almost every lookup. Bounded: when full it is cleared (a one-off cost, never unbounded memory
 * from clients sending endless distinct strings).
 */
import { isbot } from 'isbot';

const LIMIT = 10_000;
/** Longer strings are classified every time (a cache key that large would cost more than it saves). */
const MAX_KEY = 512;
const known = new Map<string, boolean>();

export function isBotAgent(userAgent: string | undefined): boolean {
  if (userAgent === undefined || userAgent.trim() === '') return false;
  if (userAgent.length > MAX_KEY) return isbot(userAgent);
  let bot = known.get(userAgent);
  if (bot === undefined) {
    bot = isbot(userAgent);
    if (known.size >= LIMIT) known.clear();
    known.set(userAgent, bot);
  }
  return bot;
}
