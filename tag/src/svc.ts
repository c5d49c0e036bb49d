/**
 * Bundle entry (IIFE, no dependencies). Replays the `window.svc` command queue, then replaces it with the
 * live object `{ data, push }` (types in ./types.ts); later `push` calls run at once.
 *
 * Flow: server-managed settings (inlined into `/tag/v1/<tagId>.js`) → queued commands → one decision:
 * opted out / Global Privacy Control / consent denied → no lookup (`svc:error` status 0), consent
 * pending → wait, else the cache (per tag and test IP) or ONE simple CORS GET
 * `<endpoint>/v3/company/details?tag=<tag>[&test_ip=<svc_test_ip>]` → minimum confidence → `svc.data`,
 * personalisation, anti-flicker reveal, `dataLayer` push, `svc:ready` (or `svc:error`). Elements added
 * later (MutationObserver) and history navigations are personalised from the same answer.
 *
 * Written for its size (see tag/README.md, "Size"): every entry point is wrapped, so nothing is thrown
 * into the host page.
 */
import { flatten } from './datalayer.ts';
import { personalise } from './personalise.ts';
import { rank } from './rules.ts';
import type { Svc, SvcCommand, SvcData, SvcInitOptions, SvcReadyDetail } from './types.ts';

type Any = any;

const report = (e: unknown) => console.error('[svc]', e);
/** `f` wrapped: an exception is reported, never thrown into the page. */
const safe =
  (f: Function) =>
  (...a: Any[]) => {
    try {
      return f(...a);
    } catch (e) {
      report(e);
    }
  };

const start = (w: Any, d: Document, server: SvcInitOptions | string) => {
  const queue: SvcCommand[] | undefined = w.svc;
  if (queue && !Array.isArray(queue)) return; // included twice: the first bundle is live
  const P = new URLSearchParams(location.search);
  const ip = P.get('svc_test_ip');
  const src = (d.currentScript as HTMLScriptElement | null)?.src;
  const mem: Record<string, string> = {};
  const cfg: SvcInitOptions & Any = {
    endpoint: src ? src.split('/tag/v1/')[0] : location.origin,
    cacheTTL: 864e5,
    timeout: 1e3,
    debug: P.has('svc_debug'),
  };
  let started: unknown;
  let current: string | undefined; // what the page shows: a cache key, or why there is no lookup
  let last: SvcReadyDetail | null;
  let seen: WeakSet<Element>;
  let view: string | undefined; // the URL of the current view

  const log = (...a: unknown[]) => cfg.debug && console.log('[svc]', ...a);
  /** localStorage, falling back to memory when it throws (blocked, private mode, quota). */
  const kv = (k: string, v?: string) => {
    try {
      return v == null ? localStorage.getItem(k) : localStorage.setItem(k, v);
    } catch {
      return v == null ? mem[k] : (mem[k] = v);
    }
  };
  const cacheKey = () => 'svc:' + cfg.tag + (ip ? ':' + ip : '');

  /** Personalises the page; a new URL (history navigation) is a new view for `svc:personalized`. */
  const apply = () => {
    const url = location.href.split('#')[0];
    if (view != url) (view = url), (seen = new WeakSet());
    const elements = last && personalise(last.data, seen, log);
    if (elements?.length) emit('personalized', { elements });
  };

  const emit = (name: string, detail: unknown) => d.dispatchEvent(new CustomEvent('svc:' + name, { detail }));
  /** `svc.on(event, cb)`: every later `svc:<event>` detail to `cb` (once: only the next). */
  const on = (name: string, cb: Function, once?: boolean) => ((cb = safe(cb)), d.addEventListener('svc:' + name, (e) => cb((e as CustomEvent).detail), { once }));

  /** The snippet's reveal: shows the elements it hid (once) and returns how long they were hidden, in ms. */
  const reveal = (): number => (queue as Any)?.r?.() | 0;

  const deliver = (raw: SvcData, cached: boolean) => {
    const low = rank(raw.confidence) < rank(cfg.minConfidence);
    const data = (api.data = low ? { company: { company_match: 'No Match' } } : raw);
    log(raw, cached, low && 'low');
    view = '';
    last = { data, cached } as SvcReadyDetail;
    apply();
    last.hidden = reveal();
    (w.dataLayer ||= []).push(flatten(data, cfg.fields));
    emit('ready', last);
  };

  const fail = (status: number, message: string) => {
    api.data = last = null;
    log(status, message);
    reveal();
    emit('error', ((api as Any).error = { status, message }));
  };

  const load = () => {
    const ttl = cfg.cacheTTL;
    const key = kv('svc:optout')
      ? 'opted out'
      : cfg.gpc !== false && navigator.globalPrivacyControl
        ? 'gpc'
        : cfg.consent && cfg.consent != 'granted'
          ? 'consent ' + cfg.consent
          : cacheKey();
    if (!started || !cfg.tag || key == current) return;
    log((current = key));
    if (key[3] != ':') return key == 'consent pending' || fail(0, key);
    try {
      const e = JSON.parse(kv(key) as string), age = Date.now() - e.t; // (NaN if absent: not fresh)
      if (age < ttl) return deliver(e.d, true);
    } catch {}
    let status = 0;
    fetch(cfg.endpoint + '/v3/company/details?tag=' + cfg.tag + (ip ? '&test_ip=' + ip : ''), { credentials: 'omit' })
      .then((r) => ((status = r.status), r.json()))
      .catch((e) => ({ message: e.message }))
      .then((body) => {
        if (key != current) return;
        if (status == 200 && body?.company) {
          if (ttl > 0) kv(key, JSON.stringify({ t: Date.now(), d: body }));
          deliver(body, false);
        } else {
          current = '';
          fail(status, body?.message || 'HTTP ' + status);
        }
      })
      .catch(report);
  };

  const commands: Record<string, Function> = {
    init(o: SvcInitOptions) {
      Object.assign(cfg, o);
      load();
    },
    onReady: (cb: Function) => (last ? safe(cb)(last) : on('ready', cb, true)),
    optOut(v: boolean) {
      kv('svc:optout', v ? '1' : '');
      if (v) kv(cacheKey(), '');
      load();
    },
    personalize() {
      view = '';
      apply();
    },
  };
  // Setters: `setCacheTTL(ms)` is `init({ cacheTTL: ms })`, `consent(state)` is `init({ consent: state })` …
  for (const c of 'setTag setEndpoint setCacheTTL setMinConfidence setFields consent debug'.split(' '))
    commands[c] = (v: unknown) => commands.init({ [c.replace(/^set./, (x) => x[3].toLowerCase())]: v });
  const run = safe((c: SvcCommand) => {
    c[0] in commands ? commands[c[0]](...c.slice(1)) : log('unknown command', c[0]);
  });
  const api: Svc = (w.svc = {
    data: null,
    push: (...c: SvcCommand[]) => c.forEach(run),
    on,
    ready: commands.onReady as Svc['ready'],
  });

  // The unreplaced placeholder is a string (its [0] is "_"); a tag's settings are an object.
  (server as Any)[0] || commands.init(server);
  queue?.forEach(run);
  started = 1;
  load();
  // Anti-flicker: the snippet hid the marked elements; reveal at the timeout (from navigation start)
  // (the snippet's own timer covers a bundle that never runs).
  setTimeout(reveal, cfg.timeout - performance.now());
  // Single-page apps: elements added later are personalised from the same answer.
  new MutationObserver(safe(apply)).observe(d, { childList: true, subtree: true, characterData: true });
};

try {
  // /tag/v1/<tagId>.js: the server replaces this string with the tag's settings (a JSON object).
  start(window, document, '__SVC_SETTINGS__');
} catch (e) {
  report(e);
}
