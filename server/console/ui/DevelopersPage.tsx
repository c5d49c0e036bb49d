/**
 * "Developers": what a developer needs to build on svc, with copy buttons — the snippet of a tag,
 * `window.svc`, the DOM events and their `detail` types, the `dataLayer` pushes, the webhook envelope and
 * each event's payload. Built from the sources themselves (developers-view.ts): the tag's public types as
 * served at /tag/v1/svc.d.ts, the tag's and the server's own code run on a real answer, and the server's
 * event list (`GET /schemas`).
 */
import { useMemo, useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import { renderSnippet } from '../../../tag/snippet.ts';
import type { AdminClient } from '../admin-client.ts';
import {
  DELIVERY_HEADERS,
  dataLayerExamples,
  dataLayerKeys,
  eventListenerExample,
  pretty,
  type SchemaList,
  TYPES_URL,
  tagEvents,
  typeBlocks,
  VERIFY_SIGNATURE_JS,
  webhookCatalog,
  webhookExamples,
} from '../developers-view.ts';
import { hashForPage } from '../guide-view.ts';
import { CopyBlock } from './CopyBlock.tsx';
import { Select, Table } from './kit/index.ts';
import { useLoad } from './use-load.ts';

async function fetchOk(url: string): Promise<Response> {
  const res = await fetch(url, { credentials: 'omit' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res;
}

export function DevelopersPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const tags = useLoad(() => api.tags(customer.id), [api, customer.id]);
  const types = useLoad(async () => (await fetchOk(TYPES_URL)).text(), []);
  const schemas = useLoad(async () => (await (await fetchOk('/schemas')).json()) as SchemaList, []);
  const [chosen, setChosen] = useState<string | null>(null);
  const tag = tags.data?.find((t) => t.tag_id === chosen) ?? tags.data?.[0] ?? null;
  const tagId = tag?.tag_id ?? 'YOUR-TAG-ID';
  const examples = useMemo(() => webhookExamples(customer.id, tagId, location.origin), [customer.id, tagId]);
  const events = types.data ? tagEvents(types.data) : [];
  const blocks = types.data ? typeBlocks(types.data) : [];
  const pushes = dataLayerExamples();

  return (
    <div class="dev" data-testid="developers">
      <section class="card dev-section" aria-labelledby="dev-snippet">
        <h2 id="dev-snippet">The snippet</h2>
        {tags.error && <p class="error">Could not load the web tags: {tags.error}</p>}
        {tags.data && tags.data.length === 0 && (
          <p class="hint">
            No web tag yet: <a href={hashForPage(customer.id, 'tags')}>create one on the Web tags page</a>. The snippet below names a placeholder.
          </p>
        )}
        {tags.data && tags.data.length > 1 && (
          <p>
            <label for="dev-tag">Tag</label>{' '}
            <Select
              id="dev-tag"
              value={tagId}
              options={tags.data.map((t) => [t.tag_id, `${t.tag_id}${t.disabled ? ' (disabled)' : ''}`] as const)}
              onValue={setChosen}
            />
          </p>
        )}
        <p class="hint">
          In &lt;head&gt; of every page. It queues commands until the tag loads and hides only the elements marked <code>data-svc-*</code> until the answer is
          there.
        </p>
        <CopyBlock text={renderSnippet({ tagId, endpoint: location.origin })} what="the snippet" testId="dev-snippet-code" />
        <p class="hint">
          TypeScript: the tag’s public types are <a href={TYPES_URL}>{TYPES_URL}</a> (<code>window.svc</code>, the events, the answer, the dataLayer pushes).
        </p>
      </section>

      {types.error && (
        <p class="error" role="alert">
          Could not load the tag’s types ({types.error}).
        </p>
      )}

      <section class="card dev-section" aria-labelledby="dev-svc">
        <h2 id="dev-svc">
          <code>window.svc</code>
        </h2>
        <p class="hint">
          An array (the snippet’s command queue) until the tag runs, then this object. <code>push</code> works on both.
        </p>
        {blocks
          .filter((b) => b.name === 'Svc')
          .map((b) => (
            <CopyBlock key={b.name} text={b.text} what="the Svc type" testId="dev-type-Svc" />
          ))}
      </section>

      <section class="card dev-section" aria-labelledby="dev-events">
        <h2 id="dev-events">DOM events</h2>
        <p class="hint">
          Dispatched on <code>document</code>; <code>window.svc.on(name, cb)</code> hears the same.
        </p>
        <Table labelledBy="dev-events" extraClass="dev-table" testId="dev-events" columns={['event', 'detail']}>
          {events.map((e) => (
            <tr key={e.event}>
              <td>
                <code>{e.event}</code>
              </td>
              <td>
                <code>{e.detail}</code>
              </td>
            </tr>
          ))}
        </Table>
        {events.length > 0 && <CopyBlock text={eventListenerExample(events)} what="the listeners" testId="dev-listeners" />}
        {blocks
          .filter((b) => b.name !== 'Svc' && b.name !== 'SvcDataLayerEvent')
          .map((b) => (
            <CopyBlock key={b.name} text={b.text} what={`the ${b.name} type`} testId={`dev-type-${b.name}`} />
          ))}
      </section>

      <section class="card dev-section" aria-labelledby="dev-datalayer">
        <h2 id="dev-datalayer">
          <code>dataLayer</code>
        </h2>
        <p class="hint">
          One push per answer, before <code>svc:ready</code>. The tag’s <code>fields</code> setting chooses the keys; by default contact data and the visitor’s
          location stay out.
        </p>
        <h3>A Match (default fields)</h3>
        <CopyBlock text={pretty(pushes.match)} what="the Match push" testId="dev-datalayer-match" />
        <h3>Any other answer</h3>
        <CopyBlock text={pretty(pushes.notIdentified)} what="the other push" testId="dev-datalayer-other" />
        <details class="dev-more">
          <summary>Every key</summary>
          <Table label="Every dataLayer key" extraClass="dev-table" testId="dev-datalayer-keys" columns={['key', 'by default', 'example']}>
            {dataLayerKeys().map((k) => (
              <tr key={k.key}>
                <td>
                  <code>{k.key}</code>
                </td>
                <td>{k.byDefault ? 'yes' : 'when listed in fields'}</td>
                <td>
                  <code>{JSON.stringify(k.example)}</code>
                </td>
              </tr>
            ))}
          </Table>
        </details>
        {blocks
          .filter((b) => b.name === 'SvcDataLayerEvent')
          .map((b) => (
            <CopyBlock key={b.name} text={b.text} what="the SvcDataLayerEvent type" testId="dev-type-SvcDataLayerEvent" />
          ))}
      </section>

      <section class="card dev-section" aria-labelledby="dev-webhooks">
        <h2 id="dev-webhooks">Webhooks</h2>
        <p class="hint">
          A signed <code>POST</code> of one JSON event. Register endpoints on the <a href={hashForPage(customer.id, 'webhooks')}>Webhooks page</a>; any 2xx is a
          delivery, anything else is retried.
        </p>
        <Table label="Webhook delivery headers" extraClass="dev-table" testId="dev-webhook-headers" columns={['header', 'value']}>
          {DELIVERY_HEADERS.map((h) => (
            <tr key={h.name}>
              <td>
                <code>{h.name}</code>
              </td>
              <td>{h.value}</td>
            </tr>
          ))}
        </Table>
        <h3>Events</h3>
        {schemas.error && <p class="error">Could not load the event list ({schemas.error}).</p>}
        {schemas.data && (
          <ul class="dev-events" data-testid="dev-webhook-events">
            {webhookCatalog(schemas.data).map((e) => (
              <li key={e.name}>
                <code>{e.name}</code>
                <ul>
                  {e.versions.map((v) => (
                    <li key={v.version}>
                      v{v.version}: {v.description} <a href={v.url}>JSON Schema</a>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
        <p class="hint">
          Every event has the same envelope: <code>id</code> (also <code>Svc-Event-Id</code>: your idempotency key), <code>type</code>, <code>created_at</code>,{' '}
          <code>customer_id</code>, <code>data</code>; a version after the first also carries <code>version</code>.
        </p>
        {examples.map((x) => (
          <div key={`${x.type}-${x.version}`}>
            <h3>
              <code>{x.type}</code> v{x.version}
            </h3>
            <CopyBlock text={pretty(x.event)} what={`the ${x.type} v${x.version} example`} testId={`dev-webhook-${x.type}-v${x.version}`} />
          </div>
        ))}
        <h3>Verifying the signature (Node)</h3>
        <CopyBlock text={VERIFY_SIGNATURE_JS} what="the verification code" testId="dev-verify" />
      </section>
    </div>
  );
}
