/**
 * Create a token for the customer. The group list only offers groups the customer's packages cover
 * (`creatableGroups`); allowed domains appear only for identification. On 201 the parent shows the secret.
 */

import type { CustomerRecord } from '../../../core/access-records.ts';
import type { ApiGroup } from '../../../core/customer-records.ts';
import type { AdminClient, TokenWithSecret } from '../admin-client.ts';
import { creatableGroups, GROUP_LABELS, groupUsesDomains } from '../groups.ts';
import { emptyTokenForm, MAX_RATE_LIMIT, type TokenFormFields, tokenRequestBody } from '../token-form.ts';
import { AnswersFields } from './AnswersFields.tsx';
import { CreateFormFooter } from './CreateFormFooter.tsx';
import { Select, TextInput } from './kit/index.ts';
import { useCreateForm } from './use-create-form.ts';

export function CreateTokenForm({ api, customer, onCreated }: { api: AdminClient; customer: CustomerRecord; onCreated(t: TokenWithSecret): void }) {
  const groups = creatableGroups(customer.packages);
  const { form, set, text, invalid, error, busy, submit } = useCreateForm({
    idPrefix: 'new-token',
    initial: () => emptyTokenForm(groups[0] ?? ''),
    validate: (f: TokenFormFields) => tokenRequestBody(customer.id, f),
    create: (body) => api.createToken(body),
    reset: (f) => emptyTokenForm(f.api_group),
    onCreated,
  });

  if (!groups.length) {
    return (
      <section aria-labelledby="create-title">
        <h2 id="create-title">Create a token</h2>
        <p class="muted">This customer’s packages cover no API group: add a package before creating tokens.</p>
      </section>
    );
  }

  return (
    <section aria-labelledby="create-title">
      <h2 id="create-title">Create a token</h2>
      <form class="card token-form" onSubmit={submit} noValidate data-testid="create-token-form">
        <div class="field">
          <label for="new-token-api_group">API group</label>
          <Select
            id="new-token-api_group"
            value={form.api_group}
            options={groups.map((g) => [g, `${g} — ${GROUP_LABELS[g]}`] as const)}
            onValue={(v) => set('api_group', v as ApiGroup)}
          />
        </div>
        <div class="field">
          <label for="new-token-name">
            Name <span class="muted">(required)</span>
          </label>
          <TextInput required maxLength={100} autoComplete="off" {...text('name')} />
          <p class="hint" id="new-token-name-hint">
            Name it after the integration that will use it.
          </p>
        </div>
        <div class="field">
          <label for="new-token-integrations">Integrations</label>
          <TextInput autoComplete="off" placeholder="hubspot, salesforce" {...text('integrations')} />
          <p class="hint" id="new-token-integrations-hint">
            Comma-separated.
          </p>
        </div>
        {form.api_group && groupUsesDomains(form.api_group) && (
          <div class="field">
            <label for="new-token-allowed_domains">Allowed domains</label>
            <TextInput autoComplete="off" placeholder="www.example.com, *.example.com" {...text('allowed_domains')} />
            <p class="hint" id="new-token-allowed_domains-hint">
              Only for client-side use: the token is then accepted only from these origins. Leave empty for server-side use.
            </p>
          </div>
        )}
        <div class="field">
          <label for="new-token-rate_limit">Rate limit (requests per minute)</label>
          <TextInput type="number" min={1} max={MAX_RATE_LIMIT} step={1} inputMode="numeric" {...text('rate_limit')} />
          <p class="hint" id="new-token-rate_limit-hint">
            Default 100.
          </p>
        </div>
        <AnswersFields value={form} onChange={set} onIntentTopics={(on) => set('intent_topics', on)} />
        <CreateFormFooter idPrefix="new-token" invalid={invalid} error={error} errorTestId="create-error" busy={busy} label="Create token" />
      </form>
    </section>
  );
}
