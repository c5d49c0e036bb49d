/**
 * Engaged time and custom events of the built bundle (feature page_views), run in a bare VM context against a
 * hand-made page whose clock (`performance.now`) and visibility (`document.hidden`, `visibilitychange`,
 * `pagehide`) the test drives: the visible time is reported once when the page is hidden or left, with the
 * page view's path and session; an SPA navigation ends a page view's time; nothing goes without the
 * visitor's permission; `track` sends a custom event at once; without the feature neither exists.
 * A real Chromium page: e2e/engaged-time.spec.ts.
 */
import vm from 'node:vm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_FEATURES, EVERY_FEATURE } from '../core/tag-features.ts';
import { bundleTag } from './build.ts';
import { matched } from './test/fixtures.ts';

let js = '';
let noPageViews = '';
beforeAll(async () => {
  [js, noPageViews] = await Promise.all([bundleTag(DEFAULT_FEATURES), bundleTag({ ...EVERY_FEATURE, page_views: false })]);
});

interface PageOptions {
  url?: string;
  queue?: unknown[];
  hidden?: boolean;
  gpc?: boolean;
  bundle?: string;
}

function page(o: PageOptions = {}) {
  let now = 100;
  const doc = new EventTarget() as EventTarget & Record<string, unknown>;
  doc.currentScript = { src: 'https://svc.example.com/tag/v1/svc.js' };
  doc.querySelectorAll = () => [];
  doc.referrer = '';
  doc.readyState = 'complete';
  doc.hidden = o.hidden ?? false;
  const win = new EventTarget() as EventTarget & Record<string, unknown>;
  win.svc = o.queue;
  win.history = { pushState() {}, replaceState() {} };
  const beacon = vi.fn((_url: string, _body: string) => true);
  const logs: unknown[][] = [];
  const location = new URL(o.url ?? 'https://www.acme.example/pricing?utm_source=news&email=a@b.example');
  const session = new Map<string, string>();
  const local = new Map<string, string>();
  const context = vm.createContext({
    window: win,
    document: doc,
    location,
    navigator: { globalPrivacyControl: o.gpc, sendBeacon: beacon },
    crypto: { getRandomValues: <T extends Uint8Array>(a: T) => a.fill(7) },
    performance: { now: () => now },
    fetch: vi.fn(async () => new Response(JSON.stringify(matched()), { status: 200 })),
    localStorage: {
      getItem: (k: string) => local.get(k) ?? null,
      setItem: (k: string, v: string) => void local.set(k, v),
      removeItem: (k: string) => void local.delete(k),
    },
    sessionStorage: { getItem: (k: string) => session.get(k) ?? null, setItem: (k: string, v: string) => void session.set(k, v) },
    URLSearchParams,
    URL,
    CustomEvent,
    Event,
    MutationObserver: class {
      observe() {}
    },
    setTimeout: () => 0,
    console: { error: (...a: unknown[]) => logs.push(a), log: (...a: unknown[]) => logs.push(a) },
  });
  const p = {
    win,
    location,
    beacon,
    logs,
    run: () => vm.runInContext(o.bundle ?? js, context),
    /** The clock moves on by `ms`. */
    wait: (ms: number) => void (now += ms),
    hide: () => {
      doc.hidden = true;
      doc.dispatchEvent(new Event('visibilitychange'));
    },
    show: () => {
      doc.hidden = false;
      doc.dispatchEvent(new Event('visibilitychange'));
    },
    leave: () => {
      // As a browser unloads a page: pagehide while still visible, then visibilitychange to hidden.
      win.dispatchEvent(new Event('pagehide'));
      p.hide();
    },
    navigate: (path: string) => {
      location.pathname = path;
      location.search = '';
      (win.history as History).pushState(null, '', path);
    },
    bodies: () => beacon.mock.calls.map(([, body]) => JSON.parse(body)),
    push: (...commands: unknown[][]) => (win.svc as { push(...c: unknown[]): void }).push(...commands),
  };
  return p;
}

const init = (o: object = {}) => [['init', { tag: 't1', ...o }]];
const SESSION = Array(12).fill(7).join('_');

describe('engaged time (feature page_views)', () => {
  it('reports the visible time once when the page is hidden, with the page view’s path and session', () => {
    const p = page({ queue: init() });
    p.run();
    p.wait(5250);
    p.hide();
    p.wait(60_000); // hidden: not engaged
    p.hide();
    expect(p.bodies()).toEqual([
      { type: 'pageview', path: '/pricing?utm_source=news', session: SESSION },
      { type: 'engagement', path: '/pricing?utm_source=news', engaged_ms: 5250, session: SESSION },
    ]);
    expect(p.beacon.mock.calls[1][0]).toBe('https://svc.example.com/v1/events?tag=t1');
  });

  it('counts each visible stretch once: shown again, hidden again; left (pagehide, then hidden) sends one beacon', () => {
    const p = page({ queue: init() });
    p.run();
    p.wait(2000);
    p.hide();
    p.wait(10_000);
    p.show();
    p.wait(3000);
    p.leave();
    p.wait(1000);
    p.hide();
    const engaged = p.bodies().filter((b) => b.type === 'engagement');
    expect(engaged.map((b) => b.engaged_ms)).toEqual([2000, 3000]);
  });

  it('starts hidden (a background tab): counts only from when the page is shown', () => {
    const p = page({ queue: init(), hidden: true });
    p.run();
    p.wait(30_000);
    p.show();
    p.wait(4000);
    p.leave();
    expect(p.bodies().filter((b) => b.type === 'engagement')).toEqual([
      { type: 'engagement', path: '/pricing?utm_source=news', engaged_ms: 4000, session: SESSION },
    ]);
  });

  it('ends a page view’s time at an SPA navigation: reported with the path it was spent on', () => {
    const p = page({ queue: init() });
    p.run();
    p.wait(1500);
    p.navigate('/docs');
    p.wait(2500);
    p.leave();
    expect(p.bodies().map((b) => [b.type, b.path, b.engaged_ms])).toEqual([
      ['pageview', '/pricing?utm_source=news', undefined],
      ['engagement', '/pricing?utm_source=news', 1500],
      ['pageview', '/docs', undefined],
      ['engagement', '/docs', 2500],
    ]);
  });

  it('sends nothing without permission: opted out after the page view, GPC, consent denied', () => {
    const opted = page({ queue: init() });
    opted.run();
    opted.push(['optOut', true]);
    opted.wait(5000);
    opted.leave();
    expect(opted.bodies().map((b) => b.type)).toEqual(['pageview']);
    for (const p of [page({ queue: init(), gpc: true }), page({ queue: init({ consent: 'denied' }) }), page({ queue: init({ pageViews: false }) })]) {
      p.run();
      p.wait(5000);
      p.leave();
      expect(p.beacon).not.toHaveBeenCalled();
    }
  });

  it('keeps the time of a page waiting for consent, and reports it with the page view once granted', () => {
    const p = page({ queue: init({ consent: 'pending' }) });
    p.run();
    p.wait(3000);
    p.hide(); // nothing may go yet
    p.show();
    expect(p.beacon).not.toHaveBeenCalled();
    p.push(['consent', 'granted']);
    p.wait(1000);
    p.leave();
    expect(p.bodies().map((b) => [b.type, b.engaged_ms])).toEqual([
      ['pageview', undefined],
      ['engagement', 4000],
    ]);
  });
});

describe('custom events: svc track (feature page_views)', () => {
  it('sends a custom event at once with its name, properties, the page path and the session', () => {
    const p = page({ queue: [...init(), ['track', 'demo_requested', { plan: 'pro', seats: 5, trial: true }]] });
    p.run();
    p.push(['track', 'signup']);
    expect(p.bodies()).toEqual([
      { type: 'event', name: 'demo_requested', properties: { plan: 'pro', seats: 5, trial: true }, path: '/pricing?utm_source=news', session: SESSION },
      { type: 'pageview', path: '/pricing?utm_source=news', session: SESSION },
      { type: 'event', name: 'signup', path: '/pricing?utm_source=news', session: SESSION },
    ]);
  });

  it('sends none without permission, and queues none for later', () => {
    const p = page({ queue: [...init({ consent: 'pending' }), ['track', 'demo_requested']] });
    p.run();
    p.push(['track', 'pricing_viewed']);
    expect(p.beacon).not.toHaveBeenCalled();
    p.push(['consent', 'granted']);
    expect(p.bodies().map((b) => b.type)).toEqual(['pageview']);
  });

  it('logs each beacon in debug mode, the engaged time and events too', () => {
    const p = page({ url: 'https://www.acme.example/pricing?svc_debug=1', queue: [...init(), ['track', 'demo_requested']] });
    p.run();
    p.wait(1200);
    p.leave();
    const logged = p.logs
      .filter(([tag, body]) => tag === '[svc]' && typeof body === 'object' && body !== null && 'session' in body)
      .map(([, b]) => (b as { type: string }).type);
    expect(logged).toEqual(['event', 'pageview', 'engagement']);
  });
});

describe('without the page_views feature', () => {
  it('has neither engaged time nor track: no beacon, track an unknown command', () => {
    const p = page({ queue: [...init(), ['track', 'demo_requested']], bundle: noPageViews });
    p.run();
    p.wait(5000);
    p.leave();
    expect(p.beacon).not.toHaveBeenCalled();
    expect(noPageViews).not.toContain('visibilitychange');
    expect(noPageViews).not.toContain('engaged_ms');
  });
});
