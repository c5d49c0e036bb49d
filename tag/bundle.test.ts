/**
 * The built bundle, run in a bare VM context against a hand-made minimal page (node environment: no DOM).
 * Covers the orchestration the pure modules' tests cannot: queue replay, the one request, cache, events,
 * dataLayer, personalisation, errors, double inclusion. Real browsers are covered by e2e/.
 */
import vm from 'node:vm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bundleTag } from './build.ts';
import { isp, matched } from './test/fixtures.ts';
import type { Svc, SvcCommand } from './src/types.ts';

let js = '';
beforeAll(async () => {
  js = await bundleTag();
});

interface FakeElement {
  attrs: Record<string, string>;
  textContent: string;
  hidden: boolean;
  getAttribute(name: string): string | null;
}
const element = (attrs: Record<string, string>, textContent = '', hidden = false): FakeElement => ({
  attrs,
  textContent,
  hidden,
  getAttribute: (n) => (n in attrs ? attrs[n] : null),
});

interface PageOptions {
  url?: string;
  scriptSrc?: string | null;
  queue?: unknown;
  storage?: Storage | (() => never);
  fetch?: ReturnType<typeof ok>;
  elements?: FakeElement[];
  dataLayer?: unknown[];
  readyState?: string;
}

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    clear: () => m.clear(),
    key: (i: number) => [...m.keys()][i] ?? null,
    get length() {
      return m.size;
    },
  };
}

const ok = (body: unknown = matched()) =>
  vi.fn(async (_url: string, _init?: RequestInit): Promise<Response> => new Response(JSON.stringify(body), { status: 200 }));

function page(o: PageOptions = {}) {
  const events: { type: string; detail: unknown }[] = [];
  const doc = new EventTarget() as EventTarget & Record<string, unknown>;
  const elements = o.elements ?? [];
  doc.currentScript = o.scriptSrc === null ? null : { src: o.scriptSrc ?? 'https://svc.example.com/tag/v1/svc.js' };
  doc.readyState = o.readyState ?? 'interactive';
  doc.querySelectorAll = (sel: string) =>
    elements.filter((el) => sel.split(',').some((s) => s.slice(1, -1) in el.attrs));
  for (const type of ['svc:ready', 'svc:error']) {
    doc.addEventListener(type, (e) => events.push({ type, detail: (e as CustomEvent).detail }));
  }
  const win: Record<string, unknown> = { svc: o.queue };
  if (o.dataLayer) win.dataLayer = o.dataLayer;
  const storage = o.storage ?? memoryStorage();
  Object.defineProperty(win, 'localStorage', {
    get: () => (typeof storage === 'function' ? storage() : storage),
  });
  const fetchMock = o.fetch ?? ok();
  const errors: unknown[] = [];
  const context = vm.createContext({
    window: win,
    document: doc,
    location: new URL(o.url ?? 'https://www.acme.example/pricing'),
    fetch: fetchMock,
    URL,
    URLSearchParams,
    CustomEvent,
    console: { error: (...a: unknown[]) => errors.push(a) },
  });
  const run = () => vm.runInContext(js, context);
  return {
    win,
    doc,
    events,
    errors,
    fetch: fetchMock,
    storage,
    run,
    get svc() {
      return win.svc as Svc;
    },
    dataLayer: () => win.dataLayer as Record<string, unknown>[] | undefined,
  };
}

const queue = (...c: SvcCommand[]) => c as unknown[];

describe('bundle', () => {
  it('replays the queue and sends ONE simple request at once', async () => {
    const p = page({ queue: queue(['init', { tag: 'acme-web-1', endpoint: 'https://api.svc.example' }]) });
    p.run();
    expect(p.fetch).toHaveBeenCalledTimes(1); // synchronously: not after load
    expect(p.fetch.mock.calls[0]).toEqual([
      'https://api.svc.example/v3/company/details?tag=acme-web-1',
      { credentials: 'omit' },
    ]);
    await vi.waitFor(() => expect(p.events).toHaveLength(1));
    expect(p.events[0]).toEqual({ type: 'svc:ready', detail: { data: matched(), cached: false } });
    expect(p.svc.data).toEqual(matched());
    expect(typeof p.svc.push).toBe('function');
    expect(typeof p.svc.on).toBe('function');
    expect(typeof p.svc.ready).toBe('function');
  });

  it("uses its own script's origin without an endpoint, and forwards svc_test_ip", () => {
    const p = page({
      url: 'https://www.acme.example/?utm_source=x&svc_test_ip=198.51.100.7',
      scriptSrc: 'http://localhost:8080/tag/v1/svc.js',
      queue: queue(['init', { tag: 'demo-web-tag' }]),
    });
    p.run();
    expect(p.fetch.mock.calls[0][0]).toBe(
      'http://localhost:8080/v3/company/details?tag=demo-web-tag&test_ip=198.51.100.7',
    );
  });

  it('falls back to the page origin without document.currentScript', () => {
    const p = page({ scriptSrc: null, queue: queue(['init', { tag: 't1' }]) });
    p.run();
    expect(p.fetch.mock.calls[0][0]).toBe('https://www.acme.example/v3/company/details?tag=t1');
  });

  it('serves the second page view from the cache without a request', async () => {
    const storage = memoryStorage();
    const first = page({ storage, queue: queue(['init', { tag: 't1' }]) });
    first.run();
    await vi.waitFor(() => expect(first.events).toHaveLength(1));
    const second = page({ storage, queue: queue(['init', { tag: 't1' }]) });
    second.run();
    expect(second.fetch).not.toHaveBeenCalled();
    expect(second.events).toEqual([{ type: 'svc:ready', detail: { data: matched(), cached: true } }]);
    // another test IP is another visitor: not served from this entry
    const third = page({ storage, url: 'https://www.acme.example/?svc_test_ip=1.2.3.4', queue: queue(['init', { tag: 't1' }]) });
    third.run();
    expect(third.fetch).toHaveBeenCalledTimes(1);
    // cacheTtl 0: always asks
    const fourth = page({ storage, queue: queue(['init', { tag: 't1', cacheTtl: 0 }]) });
    fourth.run();
    expect(fourth.fetch).toHaveBeenCalledTimes(1);
  });

  it('works with storage that throws', async () => {
    const p = page({
      storage: () => {
        throw new Error('SecurityError');
      },
      queue: queue(['init', { tag: 't1' }]),
    });
    p.run();
    await vi.waitFor(() => expect(p.events).toHaveLength(1));
    expect(p.errors).toEqual([]);
  });

  it('pushes to an existing dataLayer without replacing it, or creates one', async () => {
    const dataLayer: unknown[] = [{ event: 'gtm.js' }];
    const p = page({ dataLayer, queue: queue(['init', { tag: 't1' }]) });
    p.run();
    await vi.waitFor(() => expect(p.events).toHaveLength(1));
    expect(p.dataLayer()).toBe(dataLayer);
    expect(dataLayer).toHaveLength(2);
    expect(dataLayer[1]).toMatchObject({ event: 'svc_company_details_loaded', svc_company_name: 'Globex Corporation' });

    const q = page({ fetch: ok(isp()), queue: queue(['init', { tag: 't1' }]) });
    q.run();
    await vi.waitFor(() => expect(q.events).toHaveLength(1));
    expect(q.dataLayer()).toEqual([{ event: 'svc_company_not_identified', svc_company_match: 'Non-actionable Match' }]);
  });

  it('personalises text and visibility', async () => {
    const title = element({ 'data-svc-text': 'Acme for {company.name|teams like yours}' }, 'Acme for teams like yours');
    const plain = element({ 'data-svc-text': 'company.name' }, 'your company');
    const keep = element({ 'data-svc-text': 'company.nope' }, 'default');
    const html = element({ 'data-svc-text': '<img src=x onerror=alert(1)>{company.name}' }, '');
    const seg = element({ 'data-svc-show': 'segment = "Enterprise Software"' }, '', true);
    const other = element({ 'data-svc-show': 'segment = "Retail"' }, '', true);
    const broken = element({ 'data-svc-show': 'segment = "Retail' }, '', true);
    const generic = element({ 'data-svc-hide': 'match' });
    const both = element({ 'data-svc-show': 'match', 'data-svc-hide': 'confidence >= High' }, '', true);
    const p = page({ elements: [title, plain, keep, html, seg, other, broken, generic, both], queue: queue(['init', { tag: 't' }]) });
    p.run();
    await vi.waitFor(() => expect(p.events).toHaveLength(1));
    expect(title.textContent).toBe('Acme for Globex Corporation');
    expect(plain.textContent).toBe('Globex Corporation');
    expect(keep.textContent).toBe('default');
    expect(html.textContent).toBe('<img src=x onerror=alert(1)>Globex Corporation'); // text, not markup
    expect([seg.hidden, other.hidden, broken.hidden, generic.hidden, both.hidden]).toEqual([false, true, true, true, true]);
  });

  it('reports errors as svc:error and leaves default content', async () => {
    const seg = element({ 'data-svc-show': 'match' }, '', true);
    const title = element({ 'data-svc-text': 'Hi {company.name|there}' }, 'Default');
    const denied = vi.fn(
      async () => new Response(JSON.stringify({ status: 'error', message: 'origin not allowed for this tag' }), { status: 403 }),
    );
    const p = page({ fetch: denied, elements: [seg, title], queue: queue(['init', { tag: 't' }]) });
    const onError = vi.fn();
    p.run();
    p.svc.on('error', onError);
    await vi.waitFor(() => expect(p.events).toHaveLength(1));
    expect(p.events[0]).toEqual({ type: 'svc:error', detail: { status: 403, message: 'origin not allowed for this tag' } });
    expect(onError).toHaveBeenCalledWith({ status: 403, message: 'origin not allowed for this tag' });
    expect(p.svc.data).toBeNull();
    expect(p.dataLayer()).toBeUndefined();
    expect([seg.hidden, title.textContent]).toEqual([true, 'Default']);

    const offline = page({
      fetch: vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
      queue: queue(['init', { tag: 't' }]),
    });
    offline.run();
    await vi.waitFor(() => expect(offline.events).toHaveLength(1));
    expect(offline.events[0]).toEqual({ type: 'svc:error', detail: { status: 0, message: 'Failed to fetch' } });
  });

  it('runs commands pushed later, ignores unknown ones and survives throwing callbacks', async () => {
    const queued = vi.fn();
    const p = page({
      queue: queue(['onReady', queued], ['nope' as never, 1] as never, ['init', { tag: 't1' }]),
    });
    expect(() => p.run()).not.toThrow();
    await vi.waitFor(() => expect(queued).toHaveBeenCalledTimes(1));
    expect(queued).toHaveBeenCalledWith({ data: matched(), cached: false });

    // late subscribers get the data at once
    const late = vi.fn();
    p.svc.ready(late);
    expect(late).toHaveBeenCalledWith({ data: matched(), cached: false });

    // garbage and unknown commands are ignored, never thrown
    expect(() => p.svc.push(['toString' as never] as never, ['hasOwnProperty' as never] as never, [] as never)).not.toThrow();
    expect(() => p.svc.push(null as never)).not.toThrow();
    expect(() => p.svc.on('ready', null as never)).not.toThrow();

    // a throwing subscriber is reported and does not stop the others
    const every = vi.fn();
    p.svc.on('ready', () => {
      throw new Error('customer bug');
    });
    p.svc.on('ready', every);
    p.svc.push(['setTag', 't2']);
    expect(p.fetch).toHaveBeenCalledTimes(2);
    expect(p.fetch.mock.calls[1][0]).toContain('tag=t2');
    await vi.waitFor(() => expect(every).toHaveBeenCalledTimes(1));
    expect(p.errors.some((e) => String((e as unknown[])[1]).includes('customer bug'))).toBe(true);
    expect(queued).toHaveBeenCalledTimes(1); // ready/onReady call back once

    // the same tag again: no new request
    p.svc.push(['init', { tag: 't2' }]);
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
    const p = page({ queue: queue(['init', { tag: 't1' }]) });
    p.run();
    const live = p.svc;
    p.run();
    expect(p.svc).toBe(live);
    expect(p.fetch).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(p.events).toHaveLength(1));
  });

  it('re-applies personalisation at DOMContentLoaded for elements parsed later', async () => {
    const elements: FakeElement[] = [];
    const p = page({ elements, readyState: 'loading', queue: queue(['init', { tag: 't1' }]) });
    p.run();
    await vi.waitFor(() => expect(p.events).toHaveLength(1));
    const late = element({ 'data-svc-text': 'company.name' }, 'x');
    elements.push(late);
    p.doc.dispatchEvent(new Event('DOMContentLoaded'));
    expect(late.textContent).toBe('Globex Corporation');
  });
});
