/**
 * A real desktop Chrome's User-Agent, for tests that call the tag's routes as a browser does: the
 * service answers bot-like agents (headless Chromium announces itself as one) as Non-actionable, so a
 * test of a visitor's path must not look like a bot.
 */
export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
