/**
 * Where the server's settings go in a built bundle: the bundle's entry (src/svc.ts) passes the string
 * `__SVC_SETTINGS__` to `startTag`; the build checks it is in the bundle exactly once (tag/build.ts) and
 * the server replaces it with a tag's settings (server/tag/assets.ts). No dependencies: the server imports it.
 */
export const SETTINGS_NAME = '__SVC_SETTINGS__';

/** How the built bundle holds it: the string literal as esbuild and terser print it. */
export const SETTINGS_PLACEHOLDER = `"${SETTINGS_NAME}"`;
