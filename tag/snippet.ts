/**
 * The HTML a marketer pastes into every page, in <head> (`svc tag create` prints it):
 *
 *   <script>(function(w,d,…){ …anti-flicker… (w.svc=w.svc||[]).push(["init",{"tag":"<tagId>","endpoint":"<origin>"}]) })(window,document)</script>
 *   <script async src="<origin>/tag/v1/<tagId>.js"></script>
 *
 * - A command queue plus an async script (found early by the browser's preload scanner). The src is the
 *   per-tag bundle: the tag's server-managed settings are inlined, so changing one never needs a page edit.
 * - Anti-flicker: adds the class `svc-af` to <html> and a style rule that hides ONLY the elements marked for
 *   personalisation (`data-svc-show`, `-hide`, `-text`, `-attr`) until the bundle reveals them (data,
 *   error, no lookup, or its timeout). A timer in the snippet itself reveals them if the bundle never
 *   runs (blocked, offline). `performance.mark('svc:hide')` starts the hidden-time measure.
 * - Strict CSP: give both scripts a nonce (`nonce` option, or add the attribute in your template); the
 *   inline script copies its own nonce to the <style> it adds. No eval, no inline style attributes.
 * - Pasting it twice is harmless: the second `init` repeats the first (no second request) and a second
 *   bundle run returns at once when `window.svc` is already live.
 */

export interface SnippetOptions {
  /** Public tag id: letters, digits, `_` and `-`, 1–64 characters. */
  tagId: string;
  /**
   * Base URL of the service, e.g. `https://svc.example.com`, or a first-party proxy path such as
   * `https://www.customer.com/svc`; omit to load from the page's own origin.
   */
  endpoint?: string;
  /** CSP nonce (or a template placeholder such as `{{nonce}}`) printed on both script elements. */
  nonce?: string;
  /** Fail-safe of the anti-flicker rule in ms (the bundle's own timeout comes from the tag settings). */
  timeout?: number;
}

/** Default anti-flicker timeout, ms. */
export const ANTI_FLICKER_TIMEOUT = 1000;

const TAG_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The selector of what the snippet hides until the bundle reveals it. */
export const HIDDEN_SELECTOR = ['show', 'hide', 'text', 'attr'].map((a) => `.svc-af [data-svc-${a}]`).join();

/** JSON for inside a <script> element: no `<` that could close it, no line separators. */
export const scriptJson = (v: unknown): string =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The endpoint as `scheme://host[:port][/path]` without a trailing slash; throws if it is no http(s) URL. */
export function normaliseEndpoint(endpoint: string): string {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    throw new Error(`endpoint must be an absolute http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new Error(`endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  return (u.origin + u.pathname).replace(/\/+$/, '');
}

export function renderSnippet({ tagId, endpoint, nonce, timeout = ANTI_FLICKER_TIMEOUT }: SnippetOptions): string {
  if (!TAG_ID.test(tagId)) {
    throw new Error(`tag id must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(tagId)}`);
  }
  if (!(Number.isInteger(timeout) && timeout >= 0 && timeout <= 10_000)) {
    throw new Error(`timeout must be an integer from 0 to 10000 ms, got ${JSON.stringify(timeout)}`);
  }
  const base = endpoint ? normaliseEndpoint(endpoint) : '';
  const init = base ? { tag: tagId, endpoint: base } : { tag: tagId };
  const n = nonce ? ` nonce="${attr(nonce)}"` : '';
  // q.r(): reveal (once) and return the hidden time in ms; the bundle calls it on its answer, error or
  // timeout. The snippet's own timer calls it only if the bundle never ran (window.svc still an array).
  const js =
    '(function(w,d,h,s,n,q,p){q=w.svc=w.svc||[];if(!q.r){h=d.documentElement;p=performance;' +
    'h.classList.add("svc-af");s=d.createElement("style");n=d.currentScript;n=n&&n.nonce;if(n)s.nonce=n;' +
    `s.textContent=${scriptJson(HIDDEN_SELECTOR + '{visibility:hidden!important}')};d.head.appendChild(s);` +
    'try{p.mark("svc:hide")}catch(e){}' +
    'q.r=function(){if(q.h==null){h.classList.remove("svc-af");try{q.h=p.measure("svc:hidden","svc:hide").duration|0}catch(e){q.h=0}}return q.h};' +
    `setTimeout(function(){if(Array.isArray(w.svc))q.r()},${timeout})}` +
    `q.push(["init",${scriptJson(init)}])})(window,document)`;
  return `<script${n}>${js}</script>\n<script async${n} src="${attr(`${base}/tag/v1/${tagId}.js`)}"></script>\n`;
}
