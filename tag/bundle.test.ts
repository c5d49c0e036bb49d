/**
 * The built bundle, run in a bare VM context against a hand-made minimal page (node environment: no DOM).
 * Covers the orchestration the pure modules' tests cannot: queue replay, the one request, cache, storage
 * failure, consent, opt-out, GPC, minimum confidence, dataLayer fields, events, errors, server settings,
 * double inclusion, debug logging. Personalisation in a real DOM is covered by e2e/tag-*.spec.ts.
 */
import vm from 'node:vm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CORE_FEATURES, DEFAULT_FEATURES } from '../core/tag-features.ts';
import { bundleTag } from './build.ts';
import { SETTINGS_PLACEHOLDER } from './settings-placeholder.ts';
import type { Svc, SvcCommand, SvcData } from './src/types.ts';
import { isp, matched } from './test/fixtures.ts';

let js = '';
let coreJs = '';
beforeAll(async () => {
  [js, coreJs] = await Promise.all([bundleTag(DEFAULT_FEATURES), bundleTag(CORE_FEATURES)]);
});

interface PageOptions {
  url?: string;
  scriptSrc?: string | null;
  queue?: unknown;
  storage?: Storage | (() => never);
  /** sessionStorage as the page sees it (a throwing getter: blocked). */
  sessionStorage?: Storage | (() => never);
  fetch?: ReturnType<typeof respond>;
  dataLayer?: unknown[];
  gpc?: boolean;
  /** The per-tag bundle's inlined settings. */
  settings?: object;
  /** Run the core variant (no feature) instead of the one with every feature. */
  core?: boolean;
  /** `document.referrer` (default: a page of news.example). */
  referrer?: string;
  /** What `crypto.getRandomValues` fills with (default: 7, or a count of the draws with `sessionStorage` given). */
  randomByte?: number;
}

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, String(v)),
    removeItem: (k: string) => void m.delete(k),
    clear: () => m.clear(),
    key: (i: number) => [...m.keys()][i] ?? null,
    get length() {
      return m.size;
    },
  };
}

const respond = (body: unknown = matched(), status = 200) =>
  vi.fn(async (_url: string, _init?: RequestInit): Promise<Response> => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status }));

function page(o: PageOptions = {}) {
  const events: { type: string; detail: any }[] = [];
  const doc = new EventTarget() as EventTarget & Record<string, unknown>;
  doc.currentScript = o.scriptSrc === null ? null : { src: o.scriptSrc ?? 'https://svc.example.com/tag/v1/svc.js' };
  doc.querySelectorAll = () => [];
  doc.referrer = o.referrer ?? 'https://news.example/article?id=1';
  doc.readyState = 'complete';
  for (const type of ['svc:ready', 'svc:error', 'svc:personalized']) {
    doc.addEventListener(type, (e) => events.push({ type, detail: (e as CustomEvent).detail }));
  }
  const win: Record<string, unknown> = {
    svc: o.queue,
    history: { pushState() {}, replaceState() {} },
    addEventListener() {},
  };
  if (o.dataLayer) win.dataLayer = o.dataLayer;
  const storage = o.storage ?? memoryStorage();
  const fetchMock = o.fetch ?? respond();
  const errors: unknown[][] = [];
  const logs: unknown[][] = [];
  const beacon = vi.fn((_url: string, _body: string) => true);
  const location = new URL(o.url ?? 'https://www.acme.example/pricing');
  const session = o.sessionStorage ?? memoryStorage();
  let draws = 0;
  const context = vm.createContext({
    window: win,
    document: doc,
    location,
    navigator: { globalPrivacyControl: o.gpc, sendBeacon: beacon },
    crypto: { getRandomValues: <T extends Uint8Array>(a: T) => a.fill(o.randomByte ?? (o.sessionStorage ? ++draws : 7)) },
    performance: { now: () => 50 },
    fetch: fetchMock,
    URLSearchParams,
    URL,
    CustomEvent,
    MutationObserver: class {
      observe() {}
    },
    setTimeout: () => 0,
    console: { error: (...a: unknown[]) => errors.push(a), log: (...a: unknown[]) => logs.push(a) },
  });
  Object.defineProperty(context, 'localStorage', {
    get: () => (typeof storage === 'function' ? storage() : storage),
  });
  Object.defineProperty(context, 'sessionStorage', {
    get: () => (typeof session === 'function' ? session() : session),
  });
  const bundle = o.core ? coreJs : js;
  const source = o.settings ? bundle.replace(SETTINGS_PLACEHOLDER, JSON.stringify(o.settings)) : bundle;
  return {
    win,
    location,
    events,
    errors,
    logs,
    fetch: fetchMock,
    beacon,
    storage,
    run: () => vm.runInContext(source, context),
    get svc() {
      return win.svc as Svc;
    },
    dataLayer: () => win.dataLayer as Record<string, unknown>[] | undefined,
    settle: () => vi.waitFor(() => expect(events.filter((e) => e.type !== 'svc:personalized').length).toBeGreaterThan(0)),
  };
}

const queue = (...c: SvcCommand[]) => c as unknown[];
const init = (o: object = {}) => queue(['init', { tag: 't1', ...o }]);

describe('bundle', () => {
  it('replays the queue and sends ONE simple request at once', async () => {
    const p = page({ queue: queue(['init', { tag: 'acme-web-1', endpoint: 'https://api.svc.example' }]) });
    p.run();
    expect(p.fetch).toHaveBeenCalledTimes(1); // synchronously: not after load
    expect(p.fetch.mock.calls[0]).toEqual(['https://api.svc.example/v3/company/details?tag=acme-web-1', { credentials: 'omit' }]);
    await p.settle();
    expect(p.events).toEqual([{ type: 'svc:ready', detail: { data: matched(), cached: false, hidden: 0 } }]);
    expect(p.svc.data).toEqual(matched());
    expect(typeof p.svc.push).toBe('function');
  });

  it('asks where the bundle came from (first-party proxy path kept), and forwards svc_test_ip', () => {
    const p = page({
      url: 'https://www.acme.example/?utm_source=x&svc_test_ip=198.51.100.7',
      scriptSrc: 'https://www.acme.example/svc/tag/v1/demo-web-tag.js',
      queue: init({ tag: 'demo-web-tag' }),
    });
    p.run();
    expect(p.fetch.mock.calls[0][0]).toBe('https://www.acme.example/svc/v3/company/details?tag=demo-web-tag&test_ip=198.51.100.7');
    const q = page({ scriptSrc: null, queue: queue(['setEndpoint', 'https://first.party.example/x'], ['setTag', 't9']) });
    q.run();
    expect(q.fetch.mock.calls[0][0]).toBe('https://first.party.example/x/v3/company/details?tag=t9');
    const r = page({ scriptSrc: null, queue: init() });
    r.run();
    expect(r.fetch.mock.calls[0][0]).toBe('https://www.acme.example/v3/company/details?tag=t1');
  });

  it('makes one request per cache TTL per visitor', async () => {
    const storage = memoryStorage();
    const first = page({ storage, queue: init() });
    first.run();
    await first.settle();
    const second = page({ storage, queue: init() });
    second.run();
    expect(second.fetch).not.toHaveBeenCalled();
    expect(second.events).toEqual([{ type: 'svc:ready', detail: { data: matched(), cached: true, hidden: 0 } }]);
    // another test IP is another visitor
    const third = page({ storage, url: 'https://www.acme.example/?svc_test_ip=1.2.3.4', queue: init() });
    third.run();
    expect(third.fetch).toHaveBeenCalledTimes(1);
    // a TTL shorter than the entry's age: asks again
    const entry = JSON.parse(storage.getItem('svc:t1')!);
    storage.setItem('svc:t1', JSON.stringify({ ...entry, t: entry.t - 60_000 }));
    const fourth = page({ storage, queue: queue(['setCacheTTL', 30_000], ['init', { tag: 't1' }]) });
    fourth.run();
    expect(fourth.fetch).toHaveBeenCalledTimes(1);
    // TTL 0: always asks and stores nothing
    const mem = memoryStorage();
    const fifth = page({ storage: mem, queue: init({ cacheTTL: 0 }) });
    fifth.run();
    await fifth.settle();
    expect(fifth.fetch).toHaveBeenCalledTimes(1);
    expect(mem.length).toBe(0);
  });

  it('works with storage that throws (memory for this page view)', async () => {
    const p = page({
      storage: () => {
        throw new Error('SecurityError');
      },
      queue: init(),
    });
    p.run();
    await p.settle();
    expect(p.events[0].type).toBe('svc:ready');
    expect(p.errors).toEqual([]);
    p.svc.push(['optOut', true]); // persisted in memory
    expect(p.events.at(-1)).toEqual({ type: 'svc:error', detail: { status: 0, message: 'opted out' } });
  });

  it('pushes to an existing dataLayer without replacing it, or creates one; setFields picks the fields', async () => {
    const dataLayer: unknown[] = [{ event: 'gtm.js' }];
    const p = page({ dataLayer, queue: init() });
    p.run();
    await p.settle();
    expect(p.dataLayer()).toBe(dataLayer);
    expect(dataLayer).toHaveLength(2);
    expect(dataLayer[1]).toMatchObject({ event: 'svc_company_details_loaded', svc_company_name: 'Globex Corporation', svc_cdp_buying_stage: 'Decision' });
    expect(JSON.stringify(dataLayer[1])).not.toMatch(/svc_(address|zip|phone|geoip)/);

    const f = page({ queue: queue(['setFields', ['name', 'phone']], ['init', { tag: 't1' }]) });
    f.run();
    await f.settle();
    expect(f.dataLayer()).toEqual([
      { event: 'svc_company_details_loaded', svc_company_match: 'Match', svc_company_name: 'Globex Corporation', svc_phone: '+1 415 555 0100' },
    ]);

    const q = page({ fetch: respond(isp()), queue: init() });
    q.run();
    await q.settle();
    expect(q.dataLayer()).toEqual([{ event: 'svc_company_not_identified', svc_company_match: 'Non-actionable Match' }]);
  });

  it('treats an answer below the minimum confidence as no match', async () => {
    const p = page({ queue: queue(['setMinConfidence', 'Very High'], ['init', { tag: 't1' }]) });
    p.run();
    await p.settle();
    expect(p.svc.data).toEqual({ company: { company_match: 'No Match' } });
    expect(p.dataLayer()).toEqual([{ event: 'svc_company_not_identified', svc_company_match: 'No Match' }]);
    const q = page({ queue: init({ minConfidence: 'High' }) });
    q.run();
    await q.settle();
    expect(q.svc.data).toEqual(matched());
  });

  it('reports errors as svc:error and keeps no data', async () => {
    const denied = respond({ status: 'error', message: 'origin not allowed for this tag' }, 403);
    const p = page({ fetch: denied, queue: init() });
    p.run();
    await p.settle();
    expect(p.events).toEqual([{ type: 'svc:error', detail: { status: 403, message: 'origin not allowed for this tag' } }]);
    expect(p.svc.data).toBeNull();
    expect(p.svc.error).toEqual({ status: 403, message: 'origin not allowed for this tag' }); // for late subscribers
    expect(p.dataLayer()).toBeUndefined();

    const offline = page({
      fetch: vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
      queue: init(),
    });
    offline.run();
    await offline.settle();
    expect(offline.events[0]).toEqual({ type: 'svc:error', detail: { status: 0, message: 'Failed to fetch' } });

    const proxy = page({ fetch: respond('<html>Bad gateway</html>', 502), queue: init() });
    proxy.run();
    await proxy.settle();
    expect(proxy.events[0]).toMatchObject({ type: 'svc:error', detail: { status: 502 } });
  });

  it('holds the lookup while consent is pending, asks once granted, never when denied', async () => {
    const p = page({ queue: queue(['init', { tag: 't1' }], ['consent', 'pending']) });
    p.run();
    expect(p.fetch).not.toHaveBeenCalled(); // the order of queued commands does not matter
    expect(p.events).toEqual([]);
    p.svc.push(['consent', 'granted']);
    expect(p.fetch).toHaveBeenCalledTimes(1);
    await p.settle();

    const d = page({ queue: init({ consent: 'denied' }) });
    d.run();
    expect(d.fetch).not.toHaveBeenCalled();
    expect(d.events).toEqual([{ type: 'svc:error', detail: { status: 0, message: 'consent denied' } }]);
  });

  it('persists opt-out: no lookup, the cached answer dropped, until opted in again', async () => {
    const storage = memoryStorage();
    const p = page({ storage, queue: init() });
    p.run();
    await p.settle();
    p.svc.push(['optOut', true]);
    expect(p.svc.data).toBeNull();
    expect(storage.getItem('svc:optout')).toBe('1');
    expect(storage.getItem('svc:t1')).toBe('');
    const next = page({ storage, queue: init() });
    next.run();
    expect(next.fetch).not.toHaveBeenCalled();
    expect(next.events).toEqual([{ type: 'svc:error', detail: { status: 0, message: 'opted out' } }]);
    next.svc.push(['optOut', false]);
    expect(next.fetch).toHaveBeenCalledTimes(1);
  });

  it('honours Global Privacy Control unless told not to', () => {
    const p = page({ gpc: true, queue: init() });
    p.run();
    expect(p.fetch).not.toHaveBeenCalled();
    expect(p.events).toEqual([{ type: 'svc:error', detail: { status: 0, message: 'gpc' } }]);
    const q = page({ gpc: true, queue: init({ gpc: false }) });
    q.run();
    expect(q.fetch).toHaveBeenCalledTimes(1);
  });

  it('refuses by one rule, in this order: the stored opt-out, Global Privacy Control (unless gpc: false), the consent', () => {
    const optedOut = (flag: string) => {
      const storage = memoryStorage();
      storage.setItem('svc:optout', flag);
      return storage;
    };
    const cases: [PageOptions, string | null][] = [
      [{ storage: optedOut('1'), gpc: true, queue: init({ consent: 'denied' }) }, 'opted out'],
      [{ storage: optedOut(''), gpc: true, queue: init({ consent: 'denied' }) }, 'gpc'], // opted in again
      [{ gpc: true, queue: init({ gpc: true, consent: 'pending' }) }, 'gpc'],
      [{ gpc: true, queue: init({ gpc: false, consent: 'denied' }) }, 'consent denied'],
      [{ gpc: false, queue: init({ consent: 'denied' }) }, 'consent denied'],
      [{ gpc: true, queue: init({ gpc: false, consent: 'pending' }) }, null], // waits: no error, no request
      [{ gpc: false, queue: init({ consent: 'granted' }) }, null],
      [{ queue: init({ consent: 'anything else' as never }) }, null], // only denied and pending refuse
    ];
    for (const [options, refusal] of cases) {
      const p = page(options);
      p.run();
      const label = JSON.stringify(options.queue);
      expect(p.events, label).toEqual(refusal ? [{ type: 'svc:error', detail: { status: 0, message: refusal } }] : []);
      const asks = !refusal && !/pending/.test(label);
      expect(p.fetch, label).toHaveBeenCalledTimes(asks ? 1 : 0);
    }
  });

  it('asks again when the cached entry is unreadable, incomplete or holds no company', () => {
    for (const junk of ['', '{', 'null', '[]', '{"t":1}', JSON.stringify({ d: matched() }), JSON.stringify({ t: Date.now(), d: {} })]) {
      const storage = memoryStorage();
      storage.setItem('svc:t1', junk);
      const p = page({ storage, queue: init() });
      p.run();
      expect(p.fetch, junk).toHaveBeenCalledTimes(1);
      expect(p.errors, junk).toEqual([]);
    }
  });

  it('applies the server-managed settings first; the page commands win', async () => {
    const p = page({ settings: { tag: 'server-tag', fields: ['name'], minConfidence: 'Low' }, queue: undefined });
    p.run();
    expect(p.fetch.mock.calls[0][0]).toContain('tag=server-tag');
    await p.settle();
    expect(p.dataLayer()).toEqual([{ event: 'svc_company_details_loaded', svc_company_match: 'Match', svc_company_name: 'Globex Corporation' }]);
    const q = page({ settings: { tag: 'server-tag', consent: 'pending' }, queue: queue(['consent', 'granted']) });
    q.run();
    expect(q.fetch).toHaveBeenCalledTimes(1);
    const r = page({ settings: { tag: 'server-tag', consent: 'pending' } });
    r.run();
    expect(r.fetch).not.toHaveBeenCalled();
  });

  it('ignores unknown commands (logged in debug mode), never throws, survives throwing callbacks', async () => {
    const queued = vi.fn();
    const p = page({
      url: 'https://www.acme.example/?svc_debug=1',
      queue: queue(['onReady', queued], ['nope' as never, 1] as never, ['init', { tag: 't1' }]),
    });
    expect(() => p.run()).not.toThrow();
    expect(p.logs).toContainEqual(['[svc]', 'unknown command', 'nope']);
    await vi.waitFor(() => expect(queued).toHaveBeenCalledTimes(1));
    expect(queued).toHaveBeenCalledWith({ data: matched(), cached: false, hidden: 0 });
    expect(p.logs).toContainEqual(['[svc]', 'svc:t1']); // the lookup decision: its cache key
    expect(p.logs).toContainEqual(['[svc]', 'ready', { data: matched(), cached: false, hidden: 0 }]); // each event, with its detail

    // late subscribers get the data at once
    const late = vi.fn();
    p.svc.push(['onReady', late]);
    expect(late).toHaveBeenCalledWith({ data: matched(), cached: false, hidden: 0 });

    for (const garbage of [['toString'], ['hasOwnProperty'], ['data'], ['push'], [], null, 42]) {
      expect(() => p.svc.push(garbage as never)).not.toThrow();
    }
    p.svc.push([
      'onReady',
      () => {
        throw new Error('customer bug');
      },
    ]);
    expect(p.errors.some((e) => String(e[1]).includes('customer bug'))).toBe(true);

    const quiet = page({ queue: queue(['nope' as never] as never) });
    quiet.run();
    expect(quiet.logs).toEqual([]);
  });

  it('asks for another tag on setTag, and not again for the same one', async () => {
    const p = page({ queue: init() });
    p.run();
    await p.settle();
    p.svc.push(['setTag', 't2']);
    expect(p.fetch).toHaveBeenCalledTimes(2);
    expect(p.fetch.mock.calls[1][0]).toContain('tag=t2');
    p.svc.push(['init', { tag: 't2' }], ['personalize']);
    expect(p.fetch).toHaveBeenCalledTimes(2);
  });

  it('waits for a tag before asking anything', () => {
    const p = page({ queue: undefined });
    p.run();
    expect(p.fetch).not.toHaveBeenCalled();
    expect(p.svc.data).toBeNull();
    p.svc.push(['setTag', 't9']);
    expect(p.fetch).toHaveBeenCalledTimes(1);
  });

  it('is harmless when included twice', async () => {
    const p = page({ queue: init() });
    p.run();
    const live = p.svc;
    p.run();
    expect(p.svc).toBe(live);
    expect(p.fetch).toHaveBeenCalledTimes(1);
    await p.settle();
    expect(p.events).toHaveLength(1);
  });

  it("reports the snippet's hidden time in svc:ready", async () => {
    const q = init() as unknown[] & { r?: () => number };
    const reveal = vi.fn(() => 321);
    q.r = reveal;
    const p = page({ queue: q });
    p.run();
    await p.settle();
    expect(reveal).toHaveBeenCalled();
    expect((p.events[0].detail as { hidden: number }).hidden).toBe(321);
    const data: SvcData = p.svc.data!;
    expect(data.company.name).toBe('Globex Corporation');
  });
});

describe('page views (feature page_views)', () => {
  const body = (p: ReturnType<typeof page>, i = 0) => JSON.parse(p.beacon.mock.calls[i][1]);

  it('sends one beacon per page view: path with only utm_*, referrer host, a per-tab session id', () => {
    const p = page({ url: 'https://www.acme.example/pricing?plan=pro&utm_source=news&email=a@b.example&utm_medium=mail#top', queue: init() });
    p.run();
    expect(p.beacon).toHaveBeenCalledTimes(1);
    expect(p.beacon.mock.calls[0][0]).toBe('https://svc.example.com/v1/events?tag=t1');
    expect(body(p)).toEqual({
      type: 'pageview',
      path: '/pricing?utm_source=news&utm_medium=mail',
      referrer: 'news.example',
      session: Array(12).fill(7).join('_'),
    });
    p.svc.push(['init', { tag: 't1' }], ['personalize']);
    expect(p.beacon).toHaveBeenCalledTimes(1); // the same view is not counted twice
  });

  it("sends the referrer's host only when it is another site's, and only with the first page view of the document", () => {
    const cases: [string, string, string | undefined][] = [
      ['https://news.example/story?id=7', 'https://www.acme.example/p', 'news.example'],
      ['https://user:pw@news.example:8443/x', 'https://www.acme.example/p', 'news.example'],
      ['https://www.acme.example/pricing', 'https://www.acme.example/p', undefined],
      ['', 'https://www.acme.example/p', undefined],
      ['not a url', 'https://www.acme.example/p', undefined],
      ['', 'file:///C:/site/page.html', undefined], // a page without a host
      ['https://news.example/', 'file:///C:/site/page.html', 'news.example'],
    ];
    for (const [referrer, url, host] of cases) {
      const p = page({ referrer, url, queue: init() });
      p.run();
      expect(body(p).referrer, `${referrer} from ${url}`).toBe(host);
    }
    const p = page({ queue: init() });
    p.run();
    p.location.pathname = '/docs';
    (p.win.history as History).pushState(null, '', '/docs');
    expect([body(p, 0).referrer, body(p, 1).referrer]).toEqual(['news.example', undefined]);
  });

  it('keeps a per-tab session id in sessionStorage: made once, 12 random bytes in decimal joined by _', () => {
    const sessionStorage = memoryStorage();
    const p = page({ sessionStorage, randomByte: 255, queue: init() });
    p.run();
    const id = body(p).session;
    expect(id).toBe(Array(12).fill(255).join('_'));
    expect(id).toMatch(/^[A-Za-z0-9_-]{8,64}$/); // the server's schema (server/visits/beacon.ts), 23–47 characters
    expect(sessionStorage.getItem('svc:session')).toBe(id);
    sessionStorage.setItem('svc:session', 'kept_1'); // the next page of the tab reads it, makes none
    const next = page({ sessionStorage, url: 'https://www.acme.example/docs', queue: init() });
    next.run();
    expect(body(next).session).toBe('kept_1');
  });

  it('keeps one session id across SPA navigations when sessionStorage is blocked (memory for the document)', () => {
    const p = page({
      sessionStorage: () => {
        throw new DOMException('blocked', 'SecurityError');
      },
      queue: init(),
    });
    p.run();
    p.location.pathname = '/docs';
    (p.win.history as History).pushState(null, '', '/docs');
    p.location.pathname = '/contact';
    (p.win.history as History).pushState(null, '', '/contact');
    expect(p.beacon).toHaveBeenCalledTimes(3);
    expect(body(p, 0).session).toBe(Array(12).fill(1).join('_'));
    expect([body(p, 1).session, body(p, 2).session]).toEqual([body(p, 0).session, body(p, 0).session]);
    expect([body(p, 1).path, body(p, 2).path]).toEqual(['/docs', '/contact']);
  });

  it('logs each page view in debug mode: the beacon body', () => {
    const p = page({ url: 'https://www.acme.example/pricing?svc_debug=1', queue: init() });
    p.run();
    expect(p.logs).toContainEqual(['[svc]', { type: 'pageview', path: '/pricing', referrer: 'news.example', session: Array(12).fill(7).join('_') }]);
  });

  it('sends none without permission: opt-out, GPC, consent denied; pending waits for granted', () => {
    const storage = memoryStorage();
    storage.setItem('svc:optout', '1');
    const opted = page({ storage, queue: init() });
    opted.run();
    const gpc = page({ gpc: true, queue: init() });
    gpc.run();
    const denied = page({ queue: init({ consent: 'denied' }) });
    denied.run();
    for (const p of [opted, gpc, denied]) expect(p.beacon).not.toHaveBeenCalled();
    const pending = page({ queue: init({ consent: 'pending' }) });
    pending.run();
    expect(pending.beacon).not.toHaveBeenCalled();
    pending.svc.push(['consent', 'granted']);
    expect(pending.beacon).toHaveBeenCalledTimes(1);
    const ignoreGpc = page({ gpc: true, queue: init({ gpc: false }) });
    ignoreGpc.run();
    expect(ignoreGpc.beacon).toHaveBeenCalledTimes(1);
  });

  it('sends none with the pageViews option off, or from a variant without the feature', () => {
    const off = page({ queue: init({ pageViews: false }) });
    off.run();
    expect(off.beacon).not.toHaveBeenCalled();
    const core = page({ core: true, queue: init() });
    core.run();
    expect(core.fetch).toHaveBeenCalledTimes(1); // the core still identifies
    expect(core.beacon).not.toHaveBeenCalled();
  });
});

describe('the core variant', () => {
  it('identifies, caches, pushes to dataLayer and honours consent without any feature', async () => {
    const storage = memoryStorage();
    const p = page({ core: true, storage, queue: init() });
    p.run();
    await p.settle();
    expect(p.events).toEqual([{ type: 'svc:ready', detail: { data: matched(), cached: false, hidden: 0 } }]);
    expect(p.dataLayer()![0]).toMatchObject({ event: 'svc_company_details_loaded', svc_company_name: 'Globex Corporation' });
    const again = page({ core: true, storage, queue: init() });
    again.run();
    expect(again.fetch).not.toHaveBeenCalled();
    const denied = page({ core: true, queue: init({ consent: 'denied' }) });
    denied.run();
    expect(denied.events).toEqual([{ type: 'svc:error', detail: { status: 0, message: 'consent denied' } }]);
    const debug = page({ core: true, url: 'https://www.acme.example/?svc_debug=1', queue: queue(['nope' as never] as never, ['init', { tag: 't1' }]) });
    debug.run();
    expect(debug.logs).toEqual([]); // no debug feature: silent
  });
});
