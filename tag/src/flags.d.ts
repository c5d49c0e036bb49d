/**
 * Compile-time feature flags (see core/tag-features.ts): tag/build.ts makes esbuild replace each
 * `SVC_FEATURES.<name>` by `true` or `false`, and minification drops the code behind a `false`.
 * Only the bundle's composition (tag.ts, personalise.ts) reads them, never the pure modules (their unit tests run
 * without a build).
 */
import type { FeatureSet } from '../../core/tag-features.ts';

declare global {
  const SVC_FEATURES: Readonly<FeatureSet>;
  /** The integrations chunk's file name under `/tag/v1/` (`integrations.<content hash>.js`), also defined by the build. */
  const SVC_INTEGRATIONS_CHUNK: string;
}
