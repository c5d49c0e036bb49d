/**
 * Bundle entry (IIFE, no dependencies): starts the tag (tag.ts) with the server-managed settings.
 * `/tag/v1/<tagId>.js` replaces the placeholder string below (`'svc'`) with the tag's settings (a JSON object of
 * `init` options, server/tag/assets.ts); `/tag/v1/svc.js` leaves it, and the page configures the tag.
 */
import { guarded } from './events.ts';
import { startTag } from './tag.ts';

// Guarded like every entry point: an exception is reported, never thrown into the host page. The string is
// SETTINGS_STRING of tag/settings-placeholder.ts, written out: imported, esbuild keeps it in a variable (+5 B gzip);
// the build checks the bundle holds it exactly once.
guarded(startTag)('svc');
