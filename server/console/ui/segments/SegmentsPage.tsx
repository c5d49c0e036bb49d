/**
 * Segments: the customer's segments (name, rule in words, size) and, with `segments:write`, a builder — a
 * "Match ALL / ANY of" switch over conditions (catalog fields, one condition per field with its values
 * ORed; a product's intent; a visited path pattern; a page-view count) and groups of conditions, each with
 * its own switch (one level of nesting) — with a live preview of the rule as it changes (debounced POST
 * …/segments/preview: how many catalog accounts match and the first 20), save (create or change), rename
 * and delete. The rule logic is segment-rule-view.ts; the server checks again. Here the page (builder
 * above, list below); Builder.tsx (name, ALL/ANY, groups), conditions.tsx and FieldCondition.tsx (one
 * condition's editor), Preview.tsx (the live preview), SegmentList.tsx (the table).
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../../core/access-records.ts';
import type { AdminClient } from '../../admin-client.ts';
import type { ProductChoice } from '../../segment-rule-view.ts';
import { Button } from '../kit/index.ts';
import { useLoad } from '../use-load.ts';
import { Builder, type Draft, newDraft } from './Builder.tsx';
import { SegmentList } from './SegmentList.tsx';

export function SegmentsPage({ api, customer, canWrite }: { api: AdminClient; customer: CustomerRecord; canWrite: boolean }) {
  const segments = useLoad(() => api.segments(customer.id), [api, customer.id]);
  const [draft, setDraft] = useState<Draft | null>(null);
  // A new builder (empty form) after each save or cancel.
  const [round, setRound] = useState(0);
  const [notice, setNotice] = useState('');
  const startOver = () => {
    setDraft(null);
    setRound((r) => r + 1);
  };
  const list = segments.data ?? [];
  const products: ProductChoice[] = customer.products;
  return (
    <div class="customer" data-testid="segments-page">
      {canWrite && (
        <section aria-labelledby="builder-title">
          <div class="section-head">
            <h2 id="builder-title">{draft?.id != null ? `Edit segment ${draft.id}` : 'Build a segment'}</h2>
            {draft && draft.id !== null && (
              <Button variant="quiet" onClick={startOver}>
                New segment instead
              </Button>
            )}
          </div>
          <Builder
            key={`${draft?.id ?? 'new'}-${round}`}
            api={api}
            customerId={customer.id}
            initial={draft ?? newDraft()}
            segments={list}
            products={products}
            onSaved={(s, created) => {
              setNotice(`Segment “${s.name}” ${created ? 'created' : 'saved'} (id ${s.id}): identification answers carry it now.`);
              startOver();
              segments.reload();
            }}
            onCancel={startOver}
          />
        </section>
      )}
      <section aria-labelledby="segments-title">
        <div class="section-head">
          <h2 id="segments-title">Segments</h2>
          <Button variant="quiet" onClick={segments.reload}>
            Reload segments
          </Button>
        </div>
        <p class="ok" role="status" data-testid="segments-notice">
          {notice}
        </p>
        {segments.error && (
          <p class="error" role="alert">
            Could not load the segments: {segments.error}
          </p>
        )}
        {!segments.data && !segments.error && <p class="muted">Loading segments…</p>}
        {segments.data && list.length === 0 && <p class="muted">No segments yet{canWrite ? ': build one above' : ''}.</p>}
        {list.length > 0 && (
          <SegmentList
            api={api}
            customerId={customer.id}
            segments={list}
            products={products}
            canWrite={canWrite}
            onEdit={(s) => {
              setNotice('');
              setDraft({ id: s.id, name: s.name, match: s.match });
              document.getElementById('builder-title')?.scrollIntoView();
            }}
            onDeleted={(s) => {
              setNotice(`Segment “${s.name}” deleted; its id ${s.id} is never given again.`);
              if (draft?.id === s.id) startOver();
              segments.reload();
            }}
          />
        )}
      </section>
    </div>
  );
}
