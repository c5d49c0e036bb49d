/**
 * The tag's composition: replays the `window.svc` command queue, then replaces it with the live object
 * `{ data, error, push, on, ready }` (types.ts); later `push` calls run at once.
 *
 * Flow: server-managed settings (inlined into `/tag/v1/<tagId>.js`) → queued commands → one decision
 * (`currentRefusal`): opted out / Global Privacy Control / consent denied → no lookup (`svc:error` status 0),
 * consent pending → wait, else the cache (cache.ts) or ONE simple CORS GET (identify.ts) → minimum
 * confidence → `svc.data`, personalisation, anti-flicker reveal, `dataLayer` push, `svc:ready` (or
 * `svc:error`). With the same permission, each page view is reported (pageviews.ts).
 *
 * The privacy rule, the cache entry's freshness, the referrer's host and the page-view session id are
 * written here, where they are used, rather than as pure functions of their own: each function boundary
 * cost the bundle 8–11 B gzip (terser keeps a one-use function as a function expression called in place,
 * with its parameter list), about 40 B together. tag/bundle.test.ts covers them on the built bundle.
 *
 * Features (core/tag-features.ts) are compile-time flags: `SVC_FEATURES.x` is a literal true or false in each
 * bundle variant, and the code behind a false is dropped by the minifier. Nothing here throws into the
 * host page: commands, callbacks and observers are guarded (events.ts).
 */
import { type CacheEntry, cacheKey } from './cache.ts';
import { flatten } from './datalayer.ts';
import { type EventName, guarded, listen } from './events.ts';
import { FILLED } from './form-fill.ts';
import { onNavigation } from './history.ts';
import { requestIdentification } from './identify.ts';
import type { IntegrationsChunk } from './integrations.ts';
import { type Beacon, pageViewPath } from './pageviews.ts';
import { PERSONALISED, personaliseElement } from './personalise.ts';
import { rank } from './rules.ts';
import { safeStorage } from './storage.ts';
import type { Svc, SvcCommand, SvcData, SvcEventMap, SvcInitOptions, SvcQueue, SvcReadyDetail, SvcRefusal } from './types.ts';

const DAY_MS = 86_400_000;
/**
 * When a tool asked for (`integrations`) is not on the page as the answer arrives, it is looked for once
 * more this much later: tag managers (GTM) often add the GA4 or Segment snippet a moment after the page
 * loads. Once, on a timer, rather than waiting on the tool's own ready hook (`analytics.ready`): a hook
 * needs the tool's global to exist already, and then the tool takes calls at once (its snippet queues them).
 */
const INTEGRATIONS_RETRY_MS = 2000;

interface Config extends SvcInitOptions {
  endpoint: string;
  cacheTTL: number;
  timeout: number;
}

type CommandArguments<C> = C extends [string, ...infer A] ? A : never;
type AllCommandHandlers = { [C in SvcCommand as C[0]]: (...args: CommandArguments<C>) => void };
/** `debug`, `integrations` and `track` (page views) only with their features. */
type CommandHandlers = Omit<AllCommandHandlers, 'debug' | 'integrations' | 'track'> & Partial<Pick<AllCommandHandlers, 'debug' | 'integrations' | 'track'>>;

/** `serverSettings`: the tag's inlined settings, or the unreplaced placeholder string (generic bundle). */
export function startTag(serverSettings: SvcInitOptions | string): void {
  const queue = window.svc as SvcQueue | undefined;
  if (queue && !Array.isArray(queue)) return; // included twice: the first bundle is live

  const testIp = new URLSearchParams(location.search).get('svc_test_ip');
  const config: Config = {
    // where the bundle was loaded from (the origin has no "/tag/v1/": itself when the script has no URL)
    endpoint: ((document.currentScript as HTMLScriptElement | null)?.src || location.origin).split('/tag/v1/')[0],
    cacheTTL: DAY_MS,
    timeout: 1000,
    debug: SVC_FEATURES.debug && new URLSearchParams(location.search).has('svc_debug'),
  };
  const storage = safeStorage(() => localStorage);
  /**
   * A URL of the service for this tag: `<endpoint><route>?tag=<tag>[&test_ip=<ip>]` (the demo's test IP, so
   * the lookup and the page view are the visitor the demo shows; other servers ignore it). A closure over
   * the config rather than a pure function of four arguments: 9 B gzip less.
   */
  const url = (route: string): string =>
    config.endpoint + route + '?' + new URLSearchParams(testIp ? { tag: config.tag!, test_ip: testIp } : { tag: config.tag! });
  const debug = (...details: unknown[]): void => {
    if (SVC_FEATURES.debug && config.debug) console.log('[svc]', ...details);
  };

  /** Dispatches `svc:<name>` on the document (where `listen` hears it); with the debug feature, logs it first (in debug mode) with its detail. */
  const emit = <K extends EventName>(name: K, detail: SvcEventMap[K]): void => {
    if (SVC_FEATURES.debug) debug(name, detail);
    document.dispatchEvent(new CustomEvent('svc:' + name, { detail }));
  };

  // (Below, grouped by what they serve: views, page views, answers, decisions. Of the grouped orders
  // measured this one compresses best: 5 B gzip less on the full bundle than the previous order.)
  /** The `svc:ready` detail of the answer the page reflects (null: none yet, or an error). */
  let ready: SvcReadyDetail | null = null;
  /** The snippet's anti-flicker reveal: shows what it hid (once) and returns how long, in ms. */
  const reveal = (): number => queue?.r?.() ?? 0;

  /**
   * The URL at which `svc:personalized` reported each element in this view; each answer and each
   * `personalize` command starts a new view (a new map), as a new URL does.
   */
  let reported = new WeakMap<Element, string>();
  /** Personalises the page from the answer (`svc.data`); a new URL (history navigation) is a new view for `svc:personalized`. */
  const personaliseView = (): void => {
    if ((SVC_FEATURES.personalisation || SVC_FEATURES.form_fill) && svc.data) {
      const view = location.pathname + location.search; // (the origin is the document's)
      const elements = [];
      for (const element of document.querySelectorAll<HTMLElement>(
        SVC_FEATURES.personalisation ? (SVC_FEATURES.form_fill ? PERSONALISED + ',' + FILLED : PERSONALISED) : FILLED,
      )) {
        const exposure = personaliseElement(element, svc.data);
        if (reported.get(element) != view) elements.push(exposure);
        reported.set(element, view);
      }
      if (elements.length) emit('personalized', { elements });
    }
  };

  /** This tab's session store, one for the document: with sessionStorage blocked, its memory keeps one session id across SPA navigations. */
  const sessionStore = SVC_FEATURES.page_views ? safeStorage(() => sessionStorage) : undefined;
  /** The path of the last page view reported (undefined: none yet in this document). */
  let lastPageView: string | undefined;
  /**
   * The referrer's host name, sent with the first page view of the document only, and only when it is
   * another site's: read as a URL relative to this site (any scheme: `a:`), so none ("") or anything not
   * absolute is this site's own host, without a try (`document.referrer` is always "" or a whole URL).
   */
  const referrer = SVC_FEATURES.page_views ? new URL(document.referrer, 'a://' + location.hostname).hostname : undefined;
  /**
   * Why nothing may be sent now, or null: one rule for the page views and the lookup, and the `message` of
   * the `svc:error` that reports it. In this order: an opt-out (persisted by `optOut(true)`: the stored flag,
   * truthy), Global Privacy Control (unless `gpc: false`), then the consent state (`granted` by default;
   * `pending` waits for a decision).
   */
  const currentRefusal = (): SvcRefusal | 'consent pending' | null =>
    storage('svc:optout')
      ? 'opted out'
      : navigator.globalPrivacyControl && config.gpc !== false
        ? 'gpc'
        : config.consent == 'denied' || config.consent == 'pending'
          ? (('consent ' + config.consent) as `consent ${typeof config.consent}`) // a template literal: 6 B gzip more
          : null;

  // (The page views' own functions below are undefined without the feature: defined, they would keep the
  // functions they call from being inlined into their one other caller, 16 B gzip on the core.)
  /** Whether beacons may go now: a tag, page views not turned off, and the visitor's permission (the lookup's rule). */
  const counting = SVC_FEATURES.page_views ? (): unknown => config.tag && config.pageViews !== false && !currentRefusal() : undefined;
  /**
   * Sends a beacon with this tab's session id: the stored one, or a new one stored for the tab's next
   * beacons: 12 random bytes (96 bits) in decimal joined by "_", 23–47 characters of [0-9_], within the wire
   * format's 8–64 of [A-Za-z0-9_-] (the separator keeps every byte sequence its own id; no hex padding: 25 B gzip).
   */
  const send = (beacon: Beacon): void => {
    if (!SVC_FEATURES.page_views) return;
    beacon.session = sessionStore!('svc:session') || sessionStore!('svc:session', crypto.getRandomValues(new Uint8Array(12)).join('_'));
    navigator.sendBeacon(url('/v1/events'), JSON.stringify(beacon));
    if (SVC_FEATURES.debug) debug(beacon); // its `type` says what it is (no label of its own: 6 B gzip)
  };

  /** When the page last became visible (0: hidden since), and its visible time not reported yet, in ms. */
  let visibleSince = SVC_FEATURES.page_views && !document.hidden ? performance.now() : 0;
  let engaged = 0;
  /**
   * Engaged time: adds the visible time up to now, then, when the page is being hidden or left (an event
   * `visibilitychange` to hidden, or `pagehide`) or its page view ends (an SPA navigation: no event), reports
   * it with the page view's path, once: what was reported is not again (after `pagehide` the page's
   * `visibilitychange` to hidden adds nothing). Before the first page view is counted (the `load` event,
   * consent pending) the time is kept for it.
   */
  const engage = (event?: Event): void => {
    if (visibleSince) engaged += performance.now() - visibleSince;
    visibleSince = document.hidden || event?.type == 'pagehide' ? 0 : performance.now();
    if ((!visibleSince || !event) && engaged && lastPageView && counting!()) {
      send({ type: 'engagement', path: lastPageView, engaged_ms: engaged });
      engaged = 0;
    }
  };

  /**
   * Reports the current page view once per path, with the same permission as the lookup, and only once
   * the document is complete (the `load` listener below): the beacon never competes with (or delays)
   * the page's own resources.
   */
  const countPageView = (): void => {
    if (SVC_FEATURES.page_views && document.readyState == 'complete' && counting!()) {
      const path = pageViewPath(location, config.keptParams);
      // (not again for a replaceState that kept the path, a hash change)
      if (path != lastPageView) {
        engage(); // the previous page view's engaged time, with its path
        send({ type: 'pageview', path, referrer: lastPageView || referrer == location.hostname ? undefined : referrer });
        lastPageView = path;
      }
    }
  };

  const fail = (status: number, message: string): void => {
    svc.data = ready = null;
    reveal();
    emit('error', (svc.error = { status, message }));
  };

  const deliver = (answer: SvcData, cached: boolean): void => {
    const belowMinimum = rank(answer.confidence) < rank(config.minConfidence);
    const data: SvcData = belowMinimum ? { company: { company_match: 'No Match' } } : answer;
    svc.data = data;
    if (SVC_FEATURES.personalisation || SVC_FEATURES.form_fill) reported = new WeakMap(); // a new answer is a new view
    personaliseView();
    ready = { data, cached, hidden: reveal() }; // revealed once personalised
    (window.dataLayer ||= []).push(flatten(data, config.fields));
    if (SVC_FEATURES.integrations && data.company.company_match == 'Match') {
      // The tools asked for, now and once more later (a tool or an `integrations` command that came late),
      // while this answer is the page's: told by the integrations chunk, an ES module from the tag's own
      // endpoint loaded the first time a tool is asked for. `import()` rather than a script element (about
      // 45 B gzip less): it never blocks the page, the browser gives it the bundle's CSP nonce (a dynamic
      // import takes its script's fetch options), and it fetches and runs the module once per document (the
      // retry gets the same one). Not loaded (blocked, offline, 404): nothing is told, the rejection is
      // handled, nothing thrown.
      const integrate = (): void => {
        if (config.integrations?.segment || config.integrations?.ga4)
          import(config.endpoint + '/tag/v1/' + SVC_INTEGRATIONS_CHUNK).then(
            (chunk: IntegrationsChunk) => chunk.t(config, data),
            () => {},
          );
      };
      integrate();
      setTimeout(integrate, INTEGRATIONS_RETRY_MS);
    }
    emit('ready', ready);
  };

  /** What the page reflects: the cache key of the answer asked for, or why nothing is asked. */
  let decision: string | undefined;
  /**
   * After each command (`update` once the queue is replayed): the page view (if not counted yet), then
   * the lookup decision, acted on when it changed: nothing (consent pending), `svc:error` (no lookup by
   * choice), the cached answer, or ONE request.
   */
  const decide = (): void => {
    if (!config.tag) return;
    countPageView();
    const refused = currentRefusal();
    const key = refused ?? cacheKey(config.tag, testIp);
    if (key == decision) return;
    decision = key;
    if (SVC_FEATURES.debug) debug(key);
    if (refused) {
      // The message is a declared SvcRefusal (types.ts, the public svc.d.ts): the compiler keeps the two equal.
      if (refused != 'consent pending') fail(0, refused satisfies SvcRefusal);
      return;
    }
    // The cached answer if younger than the TTL and holding a company (none when absent, expired, dropped or
    // unreadable: JSON.parse throws, or the entry has no `t` or `d`).
    let cached: SvcData | undefined;
    try {
      const entry = JSON.parse(storage(key)!) as CacheEntry;
      if (Date.now() - entry.t < config.cacheTTL && entry.d?.company) cached = entry.d;
    } catch {}
    if (cached) deliver(cached, true);
    else
      requestIdentification(
        url('/v3/company/details'),
        guarded((status, body) => {
          if (key != decision) return; // a later decision (opt-out, another tag) replaced this request
          if (status == 200 && body.company) {
            if (config.cacheTTL > 0) storage(key, JSON.stringify({ t: Date.now(), d: body } as CacheEntry));
            deliver(body as SvcData, false);
          } else {
            decision = ''; // asked in vain: the next decision may ask again
            fail(status, body.message || 'HTTP ' + status);
          }
        }),
      );
  };

  /**
   * What a command that may change the decision runs: nothing while the queue is replayed (so the order
   * of the queued commands does not matter), then `decide`.
   */
  let update = (): void => {};

  const configure = (options: SvcInitOptions): void => {
    Object.assign(config, options);
    update();
  };
  const onReady = (callback: (detail: SvcReadyDetail) => void): void => (ready ? guarded(callback)(ready) : listen('ready', callback, true));

  const commands: Record<string, (...args: never[]) => void> = {
    init: configure,
    onReady,
    optOut(optedOut: boolean) {
      storage('svc:optout', optedOut ? '1' : '');
      if (optedOut && config.tag) storage(cacheKey(config.tag, testIp), '');
      update();
    },
    personalize() {
      if (SVC_FEATURES.personalisation || SVC_FEATURES.form_fill) {
        reported = new WeakMap();
        personaliseView();
      }
    },
  } satisfies Partial<CommandHandlers>;
  // A custom event, now, on this page, with the page views' permission (dropped without it, never queued). The
  // server checks its name and properties and keeps none that looks like an email or a token.
  if (SVC_FEATURES.page_views)
    commands.track = ((name, properties) => {
      if (counting!()) send({ type: 'event', name, properties, path: pageViewPath(location, config.keptParams) });
    }) satisfies CommandHandlers['track'];
  // The commands that set one option: `set<Option>`, or the option's own name. Without the debug feature,
  // `debug` is ignored like an unknown command (nothing is logged either way).
  for (const name of [
    'setTag',
    'setEndpoint',
    'setCacheTTL',
    'setMinConfidence',
    'setFields',
    'consent',
    ...(SVC_FEATURES.debug ? ['debug' as const] : []),
    ...(SVC_FEATURES.integrations ? ['integrations' as const] : []),
  ] satisfies (keyof CommandHandlers)[])
    commands[name] = (value: unknown) => configure({ [name.replace(/^set(.)/, (_, first: string) => first.toLowerCase())]: value });

  const run = guarded(([name, ...args]: SvcCommand) => {
    if (commands.hasOwnProperty(name)) (commands[name] as (...a: unknown[]) => void)(...args);
    else if (SVC_FEATURES.debug) debug('unknown command', name);
  });

  const svc: Svc = {
    data: null,
    push: (...commands) => commands.forEach(run),
    on: listen,
    ready: onReady,
  };
  window.svc = svc;

  if (typeof serverSettings == 'object') configure(serverSettings);
  queue?.forEach(run);
  update = decide;
  update();
  // Anti-flicker: reveal at the timeout, counted from navigation start (the snippet's own timer covers
  // a bundle that never runs).
  setTimeout(reveal, config.timeout - performance.now());
  if (SVC_FEATURES.page_views) {
    window.addEventListener('load', guarded(countPageView));
    document.addEventListener('visibilitychange', guarded(engage));
    window.addEventListener('pagehide', guarded(engage));
  }

  if (SVC_FEATURES.spa) {
    // Elements added or re-rendered later, and history navigations: new views of the same answer.
    new MutationObserver(guarded(personaliseView)).observe(document, { childList: true, subtree: true, characterData: true });
    onNavigation(
      window,
      guarded(() => {
        personaliseView();
        countPageView();
      }),
    );
  } else if (SVC_FEATURES.personalisation || SVC_FEATURES.form_fill) {
    // An async script can run before the page is parsed: personalise what came after it, once (a
    // listener added after the event never runs).
    document.addEventListener('DOMContentLoaded', guarded(personaliseView));
  }
}
