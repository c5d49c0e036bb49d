/**
 * Where the server's settings go in a built bundle: the bundle's entry (src/svc.ts) passes the string
 * `svc` to `startTag`; the build checks it is in the bundle exactly once (tag/build.ts) and the server
 * replaces it with a tag's settings (server/tag/assets.ts). No dependencies: the server imports it.
 *
 * Three letters rather than a long unique name: 14–21 B gzip less on every variant (tag/size-history.md);
 * the build's check that `"svc"` is in the bundle exactly once is what keeps it unambiguous.
 */
export const SETTINGS_STRING = 'svc';

/** How the built bundle holds it: the string literal as esbuild and terser print it. */
export const SETTINGS_PLACEHOLDER = `"${SETTINGS_STRING}"`;

/**
 * The undeclared global the build puts in the placeholder's place while terser works (tag/build.ts): a name
 * terser cannot evaluate, so it keeps the code that applies the server's settings.
 */
export const SETTINGS_NAME = '__SVC_SETTINGS__';
