/**
 * Web tags: the customer's tags, each with its copy-paste snippet (copy button) and whether it is installed
 * (the origins it was last seen on, from page views and lookups, and when). With `tags:write` (`canCreate`):
 * a form to create a tag, and on each tag its own fields (allowed domains, answers, limits), disable /
 * enable and delete. With `tag-settings:write` (a marketer too): each tag's server-managed settings —
 * features, consent default, Global Privacy Control, minimum confidence, dataLayer fields, cache time,
 * anti-flicker timeout. The snippet and the install check stay on the page whatever the tag's state.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { CustomerRecord, TagRecord } from '../../../core/access-records.ts';
import type { TagSighting } from '../../../core/visit-records.ts';
import { renderSnippet } from '../../../tag/snippet.ts';
import type { AdminClient } from '../admin-client.ts';
import {
  CONSENT_DEFAULTS,
  emptyTagForm,
  FEATURE_LABELS,
  INTEGRATION_LABELS,
  integrationsForm,
  MAX_ANTI_FLICKER_MS,
  MAX_CACHE_TTL_MS,
  MAX_TAG_LIMIT,
  MIN_CONFIDENCES,
  TAG_FEATURES,
  type TagFormFields,
  type TagSettingsFields,
  tagEditForm,
  tagPatchBody,
  tagRequestBody,
  tagSettingsBody,
  tagSettingsForm,
} from '../tag-form.ts';
import { AnswersFields } from './AnswersFields.tsx';
import { CreateFormFooter } from './CreateFormFooter.tsx';
import { formatDateTime } from './datetime.ts';
import { EditFormFooter } from './EditFormFooter.tsx';
import { Button, Checkbox, Select, TextInput } from './kit/index.ts';
import { LoadedSection } from './LoadState.tsx';
import { copyText } from './SecretDialog.tsx';
import { useCreateForm } from './use-create-form.ts';
import { useEditForm } from './use-edit-form.ts';
import { useLoad } from './use-load.ts';

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
      <LoadedSection
        id="tags-title"
        title="Tags"
        load={tags}
        what="the tags"
        loading="Loading tags…"
        status={
          created && (
            <p class="ok" role="status">
              Tag {created} created: paste its snippet into every page.
            </p>
          )
        }
      >
        {tags.data && tags.data[0].length === 0 && <p class="muted">No web tags yet{canCreate ? ': create one above' : ''}.</p>}
        {tags.data && (
          <ul class="tag-list plain">
            {tags.data[0].map((t) => (
              <TagCard
                key={t.tag_id}
                tag={t}
                sightings={tags.data![1].filter((s) => s.tag_id === t.tag_id)}
                settingsEditor={canEditSettings ? <TagSettingsEditor api={api} tag={t} onSaved={tags.reload} /> : null}
                tagEditor={canCreate ? <TagEditor api={api} tag={t} onChanged={tags.reload} /> : null}
              />
            ))}
          </ul>
        )}
      </LoadedSection>
    </div>
  );
}

function TagCard({
  tag,
  sightings,
  settingsEditor,
  tagEditor,
}: {
  tag: TagRecord;
  sightings: TagSighting[];
  settingsEditor: ComponentChildren;
  tagEditor: ComponentChildren;
}) {
  const snippet = renderSnippet({ tagId: tag.tag_id, endpoint: location.origin });
  const code = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const features = tag.settings.features ?? {};
  const on = TAG_FEATURES.filter((f) => features[f] !== false); // absent = on (core/tag-features.ts)
  const integrations = integrationsForm(features.integrations); // absent = off
  const tools = (['ga4', 'segment'] as const).filter((t) => integrations[t]).map((t) => INTEGRATION_LABELS[t]);
  return (
    <li class="card tag-card" data-testid={`tag-${tag.tag_id}`}>
      <div class="section-head">
        <h3>
          <code>{tag.tag_id}</code>
        </h3>
        <span>
          {tag.disabled && (
            <span class="badge badge-warn" data-testid="tag-disabled">
              disabled
            </span>
          )}{' '}
          {sightings.length > 0 ? <span class="badge badge-ok">installed</span> : <span class="badge badge-off">not seen yet</span>}
        </span>
      </div>
      {tag.disabled && (
        <p class="warning" data-testid="tag-disabled-note">
          Disabled: lookups and page views of this tag are refused (403) and its script loads nothing, so pages show their default content.
        </p>
      )}
      <dl class="facts">
        <dt>Allowed domains</dt>
        <dd>{tag.allowed_domains.join(', ')}</dd>
        <dt>Answers include</dt>
        <dd>{[tag.scores && 'scores', tag.segment_names && 'segment names'].filter(Boolean).join(', ') || 'firmographics only'}</dd>
        <dt>Features</dt>
        <dd data-testid="tag-features">{on.length ? on.map((f) => FEATURE_LABELS[f]).join(', ') : 'core only (identification, events, dataLayer)'}</dd>
        <dt>Analytics tools</dt>
        <dd data-testid="tag-integrations">
          {tools.length ? `told: ${tools.join(', ')}` : integrations.page_command ? "the page's integrations command chooses" : 'none'}
        </dd>
        <dt>Limits</dt>
        <dd data-testid="tag-limits">
          {tag.rate_limit} per minute for the tag, {tag.visitor_rate_limit} per visitor address
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
        <Button variant="quiet" onClick={async () => setCopied((await copyText(snippet, code.current)) ? 'copied' : 'failed')}>
          Copy snippet
        </Button>
        <span role="status" class={copied === 'failed' ? 'error' : 'ok'}>
          {copied === 'copied' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Could not copy: select the snippet and copy it by hand.' : ''}
        </span>
      </div>
      {settingsEditor}
      {tagEditor}
    </li>
  );
}

/**
 * A tag's server-managed settings (PATCH …/settings replaces the whole object): the features (bundle
 * variant), consent default, GPC, minimum confidence, dataLayer fields, cache time and anti-flicker timeout.
 */
function TagSettingsEditor({ api, tag, onSaved }: { api: AdminClient; tag: TagRecord; onSaved(): void }) {
  const { form, set, id, text, status, busy, submit } = useEditForm({
    idPrefix: `tag-settings-${tag.tag_id}`,
    initial: () => tagSettingsForm(tag.settings),
    validate: (f: TagSettingsFields) => tagSettingsBody(f, tag.settings),
    save: (body) => api.updateTagSettings(tag.tag_id, body),
    saved: 'Settings saved: pages get them with the next load of the tag.',
    onSaved,
  });
  const typed = (key: 'fields' | 'cache_ttl_ms' | 'anti_flicker_timeout_ms') => ({ ...text(key), 'aria-describedby': `${id(key)}-hint` });
  /** A setting picked from `options`, or left to the tag's default (empty). */
  const choice = <K extends 'consent_default' | 'min_confidence'>(key: K, idName: string, options: readonly string[]) => (
    <Select
      id={id(idName)}
      value={form[key]}
      options={[['', 'Tag default'], ...options.map((c) => [c, c] as const)]}
      onValue={(v) => set(key, v as TagSettingsFields[K])}
    />
  );
  return (
    <details class="tag-settings">
      <summary>Settings</summary>
      <form class="token-form" onSubmit={submit} noValidate aria-label={`Settings of ${tag.tag_id}`} data-testid="tag-settings-form">
        <FeatureChecks value={form.features} onChange={(features) => set('features', features)} />
        <fieldset class="field checks" data-testid="tag-settings-integrations">
          <legend>Analytics tools (integrations)</legend>
          {(['ga4', 'segment', 'page_command'] as const).map((t) => (
            <Checkbox
              key={t}
              label={INTEGRATION_LABELS[t]}
              checked={form.integrations[t]}
              onChecked={(on) => set('integrations', { ...form.integrations, [t]: on })}
            />
          ))}
          <p class="hint">
            The identified account is told to the tools on the page (never loaded by the tag), with the dataLayer fields. Off unless chosen: only these tags
            carry its code.
          </p>
        </fieldset>
        <div class="field">
          <label for={id('consent')}>Consent before the lookup</label>
          {choice('consent_default', 'consent', CONSENT_DEFAULTS)}
          <Checkbox label="Honour Global Privacy Control (no lookup when the browser asks)" checked={form.honor_gpc} onChecked={(on) => set('honor_gpc', on)} />
        </div>
        <div class="field">
          <label for={id('min_confidence')}>Minimum confidence</label>
          {choice('min_confidence', 'min_confidence', MIN_CONFIDENCES)}
          <p class="hint">Answers below it are treated as not identified (no personalisation, no company in the dataLayer).</p>
        </div>
        <div class="field">
          <label for={id('fields')}>dataLayer fields</label>
          <TextInput autoComplete="off" placeholder="name, domain, industry" {...typed('fields')} />
          <p class="hint" id={`${id('fields')}-hint`}>
            Which answer fields reach the dataLayer; empty: the tag's default (address and phone never).
          </p>
        </div>
        <div class="field">
          <label for={id('cache_ttl_ms')}>Cache time (ms)</label>
          <TextInput type="number" min={0} max={MAX_CACHE_TTL_MS} step={1} inputMode="numeric" {...typed('cache_ttl_ms')} />
          <p class="hint" id={`${id('cache_ttl_ms')}-hint`}>
            How long a visitor's answer is reused; empty: the tag's default.
          </p>
        </div>
        <div class="field">
          <label for={id('anti_flicker_timeout_ms')}>Anti-flicker timeout (ms)</label>
          <TextInput type="number" min={0} max={MAX_ANTI_FLICKER_MS} step={1} inputMode="numeric" {...typed('anti_flicker_timeout_ms')} />
          <p class="hint" id={`${id('anti_flicker_timeout_ms')}-hint`}>
            Longest time personalised elements stay hidden; empty: the tag's default.
          </p>
        </div>
        <EditFormFooter busy={busy} status={status} label="Save settings" />
      </form>
    </details>
  );
}

/** A tag's own fields (PATCH /admin/api/tags/:tagId), disable / enable, delete: `tags:write`. */
function TagEditor({ api, tag, onChanged }: { api: AdminClient; tag: TagRecord; onChanged(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const { form, set, id, text, status, busy, setBusy, submit } = useEditForm({
    idPrefix: `tag-edit-${tag.tag_id}`,
    initial: () => tagEditForm(tag),
    validate: tagPatchBody,
    save: (body) => api.updateTag(tag.tag_id, body),
    saved: 'Tag saved: it answers with these domains and limits now.',
    onSaved: onChanged,
  });
  const act = async (what: () => Promise<unknown>) => {
    setActionError(null);
    setBusy(true);
    try {
      await what();
      onChanged();
    } catch (err) {
      setActionError((err as Error).message);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <>
      <details class="tag-settings">
        <summary>Edit tag</summary>
        <form class="token-form" onSubmit={submit} noValidate aria-label={`Edit ${tag.tag_id}`} data-testid="tag-edit-form">
          <div class="field wide">
            <label for={id('allowed_domains')}>Allowed domains</label>
            <TextInput autoComplete="off" {...text('allowed_domains')} />
            <p class="hint">Exact hosts, or *.example.com for every subdomain; comma- or space-separated.</p>
          </div>
          <AnswersFields value={form} onChange={set} />
          <TagLimitFields input={text} hints={false} />
          <EditFormFooter busy={busy} status={status} label="Save tag" />
        </form>
      </details>
      <div class="tag-actions">
        <Button variant="quiet" disabled={busy} onClick={() => act(() => api.updateTag(tag.tag_id, { disabled: !tag.disabled }))}>
          {tag.disabled ? 'Enable tag' : 'Disable tag'}
        </Button>
        {confirming ? (
          <>
            <span>Delete {tag.tag_id}? Pages that load it get nothing; this cannot be undone.</span>
            <Button variant="danger" disabled={busy} onClick={() => act(() => api.deleteTag(tag.tag_id))}>
              Delete for good
            </Button>
            <Button variant="quiet" onClick={() => setConfirming(false)}>
              Keep it
            </Button>
          </>
        ) : (
          <Button variant="danger-quiet" onClick={() => setConfirming(true)}>
            Delete tag
          </Button>
        )}
      </div>
      {actionError && (
        <p class="error" role="alert">
          {actionError}
        </p>
      )}
    </>
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
          <TextInput autoComplete="off" placeholder="www.example.com, *.example.com" {...text('allowed_domains')} />
          <p class="hint" id="new-tag-allowed_domains-hint">
            The sites that may use the tag: exact hosts, or <code>*.example.com</code> for every subdomain (list the apex too if it serves pages).
          </p>
        </div>
        <AnswersFields value={form} onChange={set} />
        <FeatureChecks value={form.features} onChange={(features) => set('features', features)} />
        <TagLimitFields input={text} hints />
        <CreateFormFooter idPrefix="new-tag" invalid={invalid} error={error} errorTestId="create-tag-error" busy={busy} label="Create tag" />
      </form>
    </section>
  );
}

/** The tag's features (bundle variant): on the create form and in a tag's settings. */
function FeatureChecks({ value, onChange }: { value: TagSettingsFields['features']; onChange(features: TagSettingsFields['features']): void }) {
  return (
    <fieldset class="field checks">
      <legend>Features</legend>
      {TAG_FEATURES.map((f) => (
        <Checkbox key={f} label={FEATURE_LABELS[f]} checked={value[f]} onChecked={(on) => onChange({ ...value, [f]: on })} />
      ))}
    </fieldset>
  );
}

/** The tag's rate limits, on the create form (`hints`: what they count, the defaults) and on a tag's edit form. */
function TagLimitFields({
  input,
  hints,
}: {
  /** A bound text input's props (useCreateForm's or useEditForm's `text`). */
  input(key: 'rate_limit' | 'visitor_rate_limit'): {
    id: string;
    value: string;
    onInput(e: Event): void;
    'aria-invalid': boolean | undefined;
    'aria-describedby'?: string;
  };
  hints: boolean;
}) {
  const field = (key: 'rate_limit' | 'visitor_rate_limit', label: string, hint: string) => {
    const props = input(key);
    return (
      <div class="field">
        <label for={props.id}>{label}</label>
        <TextInput type="number" min={1} max={MAX_TAG_LIMIT} step={1} inputMode="numeric" {...props} />
        {hints && (
          <p class="hint" id={`${props.id}-hint`}>
            {hint}
          </p>
        )}
      </div>
    );
  };
  return (
    <>
      {field('rate_limit', 'Tag rate limit (requests per minute)', 'All visitors together. Default 6,000.')}
      {field('visitor_rate_limit', 'Per-visitor rate limit (requests per minute)', 'Per visitor address (offices share one). Default 300.')}
    </>
  );
}
