/**
 * "Get started": the onboarding checklist (GET …/onboarding, server/onboarding/steps.ts), each step ticked
 * when the server says it is done and linked to where it is done; the first carries the snippet of the
 * customer's tag with a copy button. Users land here until every step is done (guide-view.ts).
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord, TagRecord } from '../../../core/access-records.ts';
import { renderSnippet } from '../../../tag/snippet.ts';
import type { OnboardingStatus } from '../../onboarding/steps.ts';
import type { AdminClient } from '../admin-client.ts';
import { hashForPage } from '../guide-view.ts';
import { CopyBlock } from './CopyBlock.tsx';
import { Button, Select } from './kit/index.ts';
import { useLoad } from './use-load.ts';

export function OnboardingPage({
  api,
  customer,
  status,
  onRefresh,
  canCreateTag,
}: {
  api: AdminClient;
  customer: CustomerRecord;
  /** The checklist as App loaded it (it also decides the landing); undefined while loading, null when unreadable. */
  status: OnboardingStatus | null | undefined;
  onRefresh(): void;
  /** Whether the viewer's role creates web tags (tags:write); the steps themselves come per role from the server. */
  canCreateTag: boolean;
}) {
  const tags = useLoad(() => api.tags(customer.id), [api, customer.id]);
  return (
    <section class="onb" data-testid="onboarding">
      <p class="muted">
        {status ? `${status.steps.length} ${status.steps.length === 1 ? 'step' : 'steps'} for your role` : 'The steps'} from a new workspace to accounts you can
        act on. Each one ticks itself as soon as svc sees it done.
      </p>
      {status === undefined && (
        <p class="muted" role="status">
          Loading the checklist…
        </p>
      )}
      {status === null && (
        <p class="error" role="alert">
          Could not load the checklist.{' '}
          <Button variant="quiet" onClick={onRefresh}>
            Try again
          </Button>
        </p>
      )}
      {status && (
        <>
          {status.complete && (
            <p class="ok" data-testid="onboarding-complete">
              All done: every step of your checklist is ticked.
            </p>
          )}
          <ol class="onb-steps">
            {status.steps.map((step, i) => (
              <li key={step.id} class={`card onb-step${step.done ? ' onb-done' : ''}`} data-testid={`onboarding-step-${step.id}`} data-done={String(step.done)}>
                <div class="onb-head">
                  <span class="onb-mark" aria-hidden="true">
                    {step.done ? '✓' : i + 1}
                  </span>
                  <h2>
                    <a href={step.href}>{step.label}</a>
                  </h2>
                  <span class={`badge ${step.done ? 'badge-ok' : 'badge-off'}`}>{step.done ? 'done' : 'to do'}</span>
                </div>
                {step.id === 'install' && <InstallHelp customer={customer} tags={tags.data} error={tags.error} canCreate={canCreateTag} />}
              </li>
            ))}
          </ol>
          <p class="onb-foot">
            <Button variant="quiet" onClick={onRefresh}>
              Check again
            </Button>{' '}
            <a href={hashForPage(customer.id, 'developers')}>Developer reference: window.svc, events, dataLayer, webhooks</a>
          </p>
        </>
      )}
    </section>
  );
}

function InstallHelp({ customer, tags, error, canCreate }: { customer: CustomerRecord; tags: TagRecord[] | null; error: string | null; canCreate: boolean }) {
  const [chosen, setChosen] = useState<string | null>(null);
  if (error) return <p class="error">Could not load the web tags: {error}</p>;
  if (!tags) return <p class="muted">Loading the web tags…</p>;
  const usable = tags.filter((t) => !t.disabled);
  if (usable.length === 0) {
    return canCreate ? (
      <p class="hint">
        No web tag yet: <a href={hashForPage(customer.id, 'tags')}>create one on the Web tags page</a> (its allowed domains are your sites), then paste its
        snippet here.
      </p>
    ) : (
      <p class="hint">No web tag yet: an owner or admin of your workspace creates one; its snippet shows here then.</p>
    );
  }
  const tag = usable.find((t) => t.tag_id === chosen) ?? usable[0]!;
  return (
    <div class="onb-install">
      {usable.length > 1 && (
        <p>
          <label for="onb-tag">Tag</label>{' '}
          <Select id="onb-tag" value={tag.tag_id} options={usable.map((t) => [t.tag_id, t.tag_id] as const)} onValue={setChosen} />
        </p>
      )}
      <p class="hint">Paste into every page of {tag.allowed_domains.join(', ')}, in &lt;head&gt;. The step ticks at the tag’s first page view or lookup.</p>
      <CopyBlock text={renderSnippet({ tagId: tag.tag_id, endpoint: location.origin })} what="the snippet" testId="onboarding-snippet" />
    </div>
  );
}
