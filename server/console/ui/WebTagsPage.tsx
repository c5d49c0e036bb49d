/**
 * Web tags: the customer's tags, each with its copy-paste snippet (copy button) and whether it is installed
 * (the origins it was last seen on, from page views and lookups, and when); a form to create a new tag
 * (`tags:write`); each tag's settings — features, consent default, Global Privacy Control — editable with
 * `tag-settings:write` (a marketer may change them without creating tags).
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { renderSnippet } from '../../../tag/snippet.ts';
import type { CustomerRecord, TagRecord } from '../../state/store.ts';
import type { TagSighting } from '../../state/visits.ts';
import type { AdminClient } from '../admin-client.ts';
import { formatDateTime } from '../format.ts';
import {
  CONSENT_DEFAULTS,
  emptyTagForm,
  FEATURE_LABELS,
  MAX_TAG_LIMIT,
  TAG_FEATURES,
  type TagFormFields,
  type TagSettingsFields,
  tagRequestBody,
  tagSettingsBody,
  tagSettingsForm,
} from '../tag-form.ts';
import { CreateFormFooter } from './CreateFormFooter.tsx';
import { copyText } from './SecretDialog.tsx';
import { useCreateForm } from './use-create-form.ts';
import { useLoad } from './use-load.ts';

type TagWithLimits = TagRecord & { rate_limit?: number; visitor_rate_limit?: number };

export function WebTagsPage({
  api,
  customer,
  canCreate = true,
  canEditSettings = true,
}: {
  api: AdminClient;
  customer: CustomerRecord;
  canCreate?: boolean;
  canEditSettings?: boolean;
}) {
  const tags = useLoad(() => Promise.all([api.tags(customer.id), api.tagSightings(customer.id)]), [api, customer.id]);
  const [created, setCreated] = useState<string | null>(null);
  return (
    <div class="customer" data-testid="web-tags-page">
      {canCreate && (
        <CreateTagForm
          api={api}
          customer={customer}
          onCreated={(t) => {
            setCreated(t.tag_id);
            tags.reload();
          }}
        />
      )}
      <section aria-labelledby="tags-title">
        <div class="section-head">
          <h2 id="tags-title">Tags</h2>
          <button type="button" class="btn btn-quiet" onClick={tags.reload}>
            Refresh
          </button>
        </div>
        {created && (
          <p class="ok" role="status">
            Tag {created} created: paste its snippet into every page.
          </p>
        )}
        {tags.error && (
          <p class="error" role="alert">
            Could not load the tags: {tags.error}
          </p>
        )}
        {!tags.data && !tags.error && <p class="muted">Loading tags…</p>}
        {tags.data && tags.data[0].length === 0 && <p class="muted">No web tags yet{canCreate ? ': create one above' : ''}.</p>}
        {tags.data && (
          <ul class="tag-list plain">
            {tags.data[0].map((t) => (
              <TagCard
                key={t.tag_id}
                tag={t}
                sightings={tags.data![1].filter((s) => s.tag_id === t.tag_id)}
                settingsEditor={canEditSettings ? <TagSettingsEditor api={api} tag={t} onSaved={tags.reload} /> : null}
              />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function TagCard({ tag, sightings, settingsEditor }: { tag: TagWithLimits; sightings: TagSighting[]; settingsEditor: ComponentChildren }) {
  const snippet = renderSnippet({ tagId: tag.tag_id, endpoint: location.origin });
  const code = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const features = tag.settings.features ?? {};
  const on = TAG_FEATURES.filter((f) => features[f] !== false); // absent = on (core/tag-features.ts)
  return (
    <li class="card tag-card" data-testid={`tag-${tag.tag_id}`}>
      <div class="section-head">
        <h3>
          <code>{tag.tag_id}</code>
        </h3>
        {sightings.length > 0 ? <span class="badge badge-ok">installed</span> : <span class="badge badge-off">not seen yet</span>}
      </div>
      <dl class="facts">
        <dt>Allowed domains</dt>
        <dd>{tag.allowed_domains.join(', ')}</dd>
        <dt>Answers include</dt>
        <dd>{[tag.scores && 'scores', tag.segment_names && 'segment names'].filter(Boolean).join(', ') || 'firmographics only'}</dd>
        <dt>Features</dt>
        <dd data-testid="tag-features">{on.length ? on.map((f) => FEATURE_LABELS[f]).join(', ') : 'core only (identification, events, dataLayer)'}</dd>
        <dt>Limits</dt>
        <dd>
          {tag.rate_limit ?? 'default'} per minute for the tag, {tag.visitor_rate_limit ?? 'default'} per visitor address
        </dd>
        <dt>Seen on</dt>
        <dd data-testid="tag-seen-on">
          {sightings.length === 0 ? (
            'no page views or lookups yet'
          ) : (
            <ul class="plain">
              {sightings.map((s) => (
                <li key={s.origin}>
                  <code>{s.origin}</code> <span class="muted">last {formatDateTime(s.last_seen_at)}</span>
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <p class="hint">Paste into every page, in &lt;head&gt;:</p>
      <pre class="snippet">
        <code ref={code} data-testid="tag-snippet">
          {snippet}
        </code>
      </pre>
      <div class="copy-row">
        <button type="button" class="btn btn-quiet" onClick={async () => setCopied((await copyText(snippet, code.current)) ? 'copied' : 'failed')}>
          Copy snippet
        </button>
        <span role="status" class={copied === 'failed' ? 'error' : 'ok'}>
          {copied === 'copied' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Could not copy: select the snippet and copy it by hand.' : ''}
        </span>
      </div>
      {settingsEditor}
    </li>
  );
}

/** A tag's server-managed settings: the features (bundle variant), the consent default and GPC. */
function TagSettingsEditor({ api, tag, onSaved }: { api: AdminClient; tag: TagRecord; onSaved(): void }) {
  const [form, setForm] = useState<TagSettingsFields>(() => tagSettingsForm(tag.settings));
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const id = (name: string) => `tag-settings-${tag.tag_id}-${name}`;
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setStatus(null);
    try {
      await api.updateTagSettings(tag.tag_id, tagSettingsBody(tag.settings, form));
      setStatus({ ok: true, text: 'Settings saved: pages get them with the next load of the tag.' });
      onSaved();
    } catch (err) {
      setStatus({ ok: false, text: `Not saved: ${(err as Error).message}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <details class="tag-settings">
      <summary>Settings</summary>
      <form class="token-form" onSubmit={save} noValidate aria-label={`Settings of ${tag.tag_id}`} data-testid="tag-settings-form">
        <fieldset class="field checks">
          <legend>Features</legend>
          {TAG_FEATURES.map((f) => (
            <label key={f}>
              <input
                type="checkbox"
                checked={form.features[f]}
                onChange={(e) => setForm({ ...form, features: { ...form.features, [f]: (e.currentTarget as HTMLInputElement).checked } })}
              />{' '}
              {FEATURE_LABELS[f]}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for={id('consent')}>Consent before the lookup</label>
          <select
            id={id('consent')}
            value={form.consent_default}
            onChange={(e) => setForm({ ...form, consent_default: (e.currentTarget as HTMLSelectElement).value as TagSettingsFields['consent_default'] })}
          >
            <option value="">Tag default</option>
            {CONSENT_DEFAULTS.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
          <label class="inline-check">
            <input type="checkbox" checked={form.honor_gpc} onChange={(e) => setForm({ ...form, honor_gpc: (e.currentTarget as HTMLInputElement).checked })} />{' '}
            Honour Global Privacy Control (no lookup when the browser asks)
          </label>
        </div>
        <div class="form-actions">
          <button type="submit" class="btn btn-quiet" disabled={busy}>
            {busy ? 'Saving…' : 'Save settings'}
          </button>
        </div>
        <p role="status" class={status?.ok === false ? 'error' : 'ok'}>
          {status?.text ?? ''}
        </p>
      </form>
    </details>
  );
}

function CreateTagForm({ api, customer, onCreated }: { api: AdminClient; customer: CustomerRecord; onCreated(t: TagRecord): void }) {
  const { form, set, text, invalid, error, busy, submit } = useCreateForm({
    idPrefix: 'new-tag',
    initial: emptyTagForm,
    validate: (f: TagFormFields) => tagRequestBody(customer.id, f),
    create: (body) => api.createTag(body),
    reset: () => emptyTagForm(),
    onCreated,
  });

  return (
    <section aria-labelledby="create-tag-title">
      <h2 id="create-tag-title">Create a web tag</h2>
      <form class="card token-form" onSubmit={submit} noValidate data-testid="create-tag-form">
        <div class="field wide">
          <label for="new-tag-allowed_domains">
            Allowed domains <span class="muted">(required)</span>
          </label>
          <input type="text" autoComplete="off" placeholder="www.example.com, *.example.com" {...text('allowed_domains')} />
          <p class="hint" id="new-tag-allowed_domains-hint">
            The sites that may use the tag: exact hosts, or <code>*.example.com</code> for every subdomain (list the apex too if it serves pages).
          </p>
        </div>
        <fieldset class="field checks">
          <legend>Answers include</legend>
          <label>
            <input type="checkbox" checked={form.scores} onChange={(e) => set('scores', (e.currentTarget as HTMLInputElement).checked)} /> Scores
          </label>
          <label>
            <input type="checkbox" checked={form.segment_names} onChange={(e) => set('segment_names', (e.currentTarget as HTMLInputElement).checked)} /> Segment
            names
          </label>
        </fieldset>
        <fieldset class="field checks">
          <legend>Features</legend>
          {TAG_FEATURES.map((f) => (
            <label key={f}>
              <input
                type="checkbox"
                checked={form.features[f]}
                onChange={(e) => set('features', { ...form.features, [f]: (e.currentTarget as HTMLInputElement).checked })}
              />{' '}
              {FEATURE_LABELS[f]}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="new-tag-rate_limit">Tag rate limit (requests per minute)</label>
          <input type="number" min={1} max={MAX_TAG_LIMIT} step={1} inputMode="numeric" {...text('rate_limit')} />
          <p class="hint" id="new-tag-rate_limit-hint">
            All visitors together. Default 6,000.
          </p>
        </div>
        <div class="field">
          <label for="new-tag-visitor_rate_limit">Per-visitor rate limit (requests per minute)</label>
          <input type="number" min={1} max={MAX_TAG_LIMIT} step={1} inputMode="numeric" {...text('visitor_rate_limit')} />
          <p class="hint" id="new-tag-visitor_rate_limit-hint">
            Per visitor address (offices share one). Default 300.
          </p>
        </div>
        <CreateFormFooter idPrefix="new-tag" invalid={invalid} error={error} errorTestId="create-tag-error" busy={busy} label="Create tag" />
      </form>
    </section>
  );
}
