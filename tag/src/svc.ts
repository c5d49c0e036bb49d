/**
 * Bundle entry (IIFE, es2017, no dependencies). Replays the `window.svc` command queue, then replaces it
 * with the live object: `data`, `push`, `on`, `ready` (types in ./types.ts).
 *
 * Flow: `init` / `setTag` → cache (per tag and test IP) or ONE simple CORS GET
 * `<endpoint>/v3/company/details?tag=<tag>[&test_ip=<svc_test_ip>]` → `svc.data`, personalisation,
 * `dataLayer` push, `svc:ready` (or `svc:error` with `{ status, message }`; default content stays).
 *
 * Commands live in one table; a later issue adds optOut / consent / SPA page views / form fill as entries.
 * Every entry point is wrapped: nothing is thrown into the host page.
 */
import { cacheKey, cacheRead, cacheWrite, DAY, safeStorage } from './cache.ts';
import { flatten } from './datalayer.ts';
import { emitter, guard } from './events.ts';
import { personalise } from './personalise.ts';
import { detailsUrl, fetchDetails, testIp } from './request.ts';
import type { Svc, SvcCommand, SvcData, SvcErrorDetail, SvcInitOptions, SvcReadyDetail } from './types.ts';

guard((w: Window, d: Document) => {
  const queue = w.svc;
  if (queue && !Array.isArray(queue)) return; // bundle included twice: the first one is live
  const script = d.currentScript as HTMLScriptElement | null;
  const origin = script && script.src ? new URL(script.src).origin : location.origin;
  const kv = safeStorage(() => w.localStorage);
  const events = emitter(d);
  const cfg: SvcInitOptions = { tag: '', endpoint: '', cacheTtl: DAY };
  let current = ''; // cache key of the answer being fetched or shown
  let last: SvcReadyDetail | null = null;

  const deliver = (data: SvcData, cached: boolean) => {
    api.data = data;
    last = { data, cached };
    guard(personalise)(d, data);
    guard(() => (w.dataLayer = w.dataLayer || []).push(flatten(data)))();
    events.emit('ready', last);
  };

  const load = () => {
    const tag = cfg.tag;
    const ip = testIp(location.search), key = cacheKey(tag!, ip), ttl = +cfg.cacheTtl!;
    if (!tag || key == current) return;
    current = key;
    const hit = cacheRead(kv, key, Date.now(), ttl);
    if (hit) return deliver(hit, true);
    fetchDetails(detailsUrl(cfg.endpoint || origin, tag, ip)).then(
      guard((data: SvcData) => {
        if (key != current) return;
        cacheWrite(kv, key, data, Date.now(), ttl);
        deliver(data, false);
      }),
      guard((e: SvcErrorDetail) => {
        if (key != current) return;
        current = '';
        api.data = last = null;
        events.emit('error', { status: +e.status || 0, message: String(e.message || e) });
      }),
    );
  };

  const ready = (cb: (detail: SvcReadyDetail) => void) => {
    if (last) return guard(cb)(last);
    events.on('ready', cb, true);
  };

  const commands: Record<string, (...args: any[]) => void> = {
    init(o: SvcInitOptions) {
      for (const k in o) (cfg as Record<string, unknown>)[k] = (o as Record<string, unknown>)[k];
      load();
    },
    setTag(tag: string) {
      cfg.tag = tag;
      load();
    },
    onReady: ready,
  };

  const run = guard((c: SvcCommand) => {
    const f = commands.hasOwnProperty(c[0]) && commands[c[0]];
    if (f) f.apply(null, c.slice(1));
  });

  const api: Svc = {
    data: null,
    push: (...c) => c.forEach(run),
    on: guard(events.on) as Svc['on'],
    ready: guard(ready),
  };

  w.svc = api;
  (queue || []).forEach(run);
  // Elements parsed after the answer arrived get personalised once the document is complete.
  d.addEventListener('DOMContentLoaded', guard(() => last && personalise(d, last.data)));
})(window, document);
