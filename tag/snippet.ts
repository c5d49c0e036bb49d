/**
 * The HTML a marketer pastes into every page (`svc tag create` prints it):
 *
 *   <script>window.svc=window.svc||[];window.svc.push(["init",{"tag":"<tagId>","endpoint":"<origin>"}]);</script>
 *   <script async src="<origin>/tag/v1/svc.js"></script>
 *
 * A command queue plus an async script (found early by the browser's preload scanner). Without an
 * endpoint the src is root-relative and the bundle uses its own origin for the API. Pasting it twice is
 * harmless: the second `init` repeats the first (no second request) and a second bundle run returns at
 * once when `window.svc` is already live.
 */

export interface SnippetOptions {
  /** Public tag id: letters, digits, `_` and `-`, 1–64 characters. */
  tagId: string;
  /** Base URL of the service, e.g. `https://svc.example.com`; omit to load from the page's own origin. */
  endpoint?: string;
}

const TAG_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** JSON for inside a <script> element: no `<` that could close it. */
const js = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The endpoint as `scheme://host[:port][/path]` without a trailing slash; throws if it is no http(s) URL. */
export function normaliseEndpoint(endpoint: string): string {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    throw new Error(`endpoint must be an absolute http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  if (u.protocol != 'https:' && u.protocol != 'http:') {
    throw new Error(`endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  return (u.origin + u.pathname).replace(/\/+$/, '');
}

export function renderSnippet({ tagId, endpoint }: SnippetOptions): string {
  if (!TAG_ID.test(tagId)) {
    throw new Error(`tag id must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(tagId)}`);
  }
  const base = endpoint ? normaliseEndpoint(endpoint) : '';
  const init = base ? { tag: tagId, endpoint: base } : { tag: tagId };
  return (
    `<script>window.svc=window.svc||[];window.svc.push(["init",${js(init)}]);</script>\n` +
    `<script async src="${attr(base + '/tag/v1/svc.js')}"></script>\n`
  );
}
