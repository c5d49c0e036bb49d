/**
 * Entry of the integrations chunk (`/tag/v1/integrations.<hash>.js`, an ES module built by tag/build.ts):
 * what the tag's `import()` gets (IntegrationsChunk). Guarded like every entry point: nothing thrown into the
 * host page or the tag.
 */
import { guarded } from './events.ts';
import { type IntegrationsChunk, tellAnswer } from './integrations.ts';

export const t: IntegrationsChunk['t'] = (config, data) => guarded(tellAnswer)(window, config, data);
