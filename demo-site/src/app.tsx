/**
 * The demo page's "behind the scenes" panel (Preact): visitor switcher, `window.svc.data`, event log.
 * Mounted only on #demo-tools; the elements the tag personalises are static HTML in index.html, so
 * Preact never re-renders over the tag's changes.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Svc, SvcData } from '../../tag/src/types.ts';
import { type DemoLogEntry, summarise } from './log.ts';
import { type DemoVisitor, fetchVisitors, withTestIp } from './visitors.ts';

const KIND_LABEL: Record<string, string> = {
  company: 'company',
  isp: 'ISP',
  hosting: 'hosting',
  bot: 'bot',
  none: 'unknown',
};

const liveSvc = (): Svc | null => {
  const s = window.svc;
  return s && !Array.isArray(s) ? s : null;
};

const currentTestIp = () => new URLSearchParams(location.search).get('svc_test_ip');

function clearTagCache() {
  try {
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const key = localStorage.key(i);
      if (key?.startsWith('svc:')) localStorage.removeItem(key);
    }
  } catch {
    // storage disabled: the tag keeps its answer in memory only, a reload asks again anyway
  }
  location.reload();
}

function VisitorSwitcher() {
  const [visitors, setVisitors] = useState<DemoVisitor[] | null>(null);
  useEffect(() => {
    fetchVisitors().then(setVisitors);
  }, []);
  const active = currentTestIp();
  const go = (ip: string | null) => location.assign(withTestIp(location.href, ip));
  return (
    <section id="visitor-switcher" data-testid="visitor-switcher" class="switcher" hidden={!visitors?.length}>
      <h3>See the page as…</h3>
      <p class="hint">
        Demo mode: each button reloads the page with <code>?svc_test_ip=</code>, and the server answers as if the visit came from that address.
      </p>
      <div class="switcher-buttons">
        <button type="button" data-testid="visitor-option" data-ip="" aria-pressed={!active} onClick={() => go(null)}>
          Your own address <span class="kind">real</span>
        </button>
        {(visitors ?? []).map((v) => (
          <button
            type="button"
            key={v.ip}
            data-testid="visitor-option"
            data-ip={v.ip}
            data-kind={v.kind}
            aria-pressed={active === v.ip}
            title={v.ip}
            onClick={() => go(v.ip)}
          >
            {v.label} <span class={`kind kind-${v.kind}`}>{KIND_LABEL[v.kind] ?? v.kind}</span>
          </button>
        ))}
      </div>
    </section>
  );
}

function Status({ data, log }: { data: SvcData | null; log: DemoLogEntry[] }) {
  const last = log.filter((e) => e.type === 'svc:ready' || e.type === 'svc:error').at(-1);
  let text = 'Waiting for the tag…';
  if (last?.type === 'svc:error') text = `${summarise(last)} (default content kept)`;
  else if (last?.type === 'svc:ready' && data) {
    const cached = (last.detail as { cached?: boolean }).cached;
    text = `${data.company.company_match}${data.confidence ? ` · ${data.confidence} confidence` : ''} · ${
      cached ? 'served from the local cache (no request)' : 'fetched from the server'
    }`;
  }
  return (
    <p class="status" data-testid="svc-status">
      {text}
    </p>
  );
}

function Tools() {
  const [log, setLog] = useState<DemoLogEntry[]>(() => (window.__svcDemoLog ?? []).slice());
  const [data, setData] = useState<SvcData | null>(() => liveSvc()?.data ?? null);
  useEffect(() => {
    const update = () => {
      setLog((window.__svcDemoLog ?? []).slice());
      setData(liveSvc()?.data ?? null);
    };
    document.addEventListener('svcdemo:log', update);
    update();
    return () => document.removeEventListener('svcdemo:log', update);
  }, []);
  const ip = currentTestIp();
  return (
    <div class="tools-grid">
      <div class="tools-col">
        <VisitorSwitcher />
        <section class="panel">
          <h3>
            <code>window.svc.data</code>
          </h3>
          <Status data={data} log={log} />
          {ip && (
            <p class="hint">
              Viewing as test address <code>{ip}</code>
            </p>
          )}
          <pre id="svc-data-panel" data-testid="svc-data-panel" class="json">
            {JSON.stringify(data, null, 2)}
          </pre>
          <button type="button" class="link" onClick={clearTagCache}>
            Forget the cached answer and reload
          </button>
        </section>
      </div>
      <section class="panel tools-col">
        <h3>Events</h3>
        <p class="hint">
          DOM events on <code>document</code> and pushes to <code>window.dataLayer</code>, in order.
        </p>
        <ol id="svc-event-log" data-testid="svc-event-log" class="log">
          {log.map((e, i) => (
            <li key={i} data-testid="svc-event" data-type={e.type}>
              <details>
                <summary>
                  <span class="at">{e.at} ms</span> <code class={`type type-${e.type.replace(/\W/g, '-')}`}>{e.type}</code> {summarise(e)}
                </summary>
                <pre class="json">{JSON.stringify(e.detail, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
        {!log.length && <p class="hint">Nothing yet.</p>}
      </section>
    </div>
  );
}

const root = document.getElementById('demo-tools');
if (root) render(<Tools />, root);
