/** The builder's live preview: how many catalog accounts the rule matches and the first 20, asked again (debounced) when the rule changes. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SegmentMatch } from '../../../../core/customer-records.ts';
import type { AdminClient, SegmentPreview } from '../../admin-client.ts';
import { hasConditions, type ProductChoice, ruleInWords, ruleKey } from '../../segment-rule-view.ts';
import { Table } from '../kit/index.ts';

/** How long the rule must stay unchanged before the preview is asked for. */
const PREVIEW_DELAY_MS = 300;

/** The live preview of a rule: asked again only when the rule itself changes, the latest answer wins; none for a rule with problems. */
export function usePreview(api: AdminClient, customerId: string, match: SegmentMatch | null) {
  const key = match ? ruleKey(match) : 'invalid';
  const [state, setState] = useState<{ key: string; preview: SegmentPreview | null; error: string | null; busy: boolean }>({
    key: '',
    preview: null,
    error: null,
    busy: false,
  });
  const asked = useRef(0);
  useEffect(() => {
    if (!match || !hasConditions(match)) {
      ++asked.current;
      setState({ key, preview: null, error: null, busy: false });
      return;
    }
    setState((s) => ({ ...s, busy: true }));
    const n = ++asked.current;
    const timer = setTimeout(() => {
      api.previewSegment(customerId, JSON.parse(JSON.stringify(match))).then(
        (preview) => n === asked.current && setState({ key, preview, error: null, busy: false }),
        (e: Error) => n === asked.current && setState({ key, preview: null, error: e.message, busy: false }),
      );
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
    // The key stands for the rule: a new object with the same conditions asks nothing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, customerId, key]);
  return state;
}

export function PreviewPanel({
  state,
  rule,
  products,
}: {
  state: ReturnType<typeof usePreview>;
  rule: SegmentMatch | null;
  products: readonly ProductChoice[];
}) {
  const ready = rule !== null && hasConditions(rule);
  return (
    <section class="preview" aria-labelledby="preview-title" data-testid="segment-preview" aria-busy={state.busy}>
      <h3 id="preview-title">Preview</h3>
      <p class="muted" data-testid="segment-rule-words">
        {rule ? ruleInWords(rule, products) : 'The rule has a problem: see the marked condition.'}
      </p>
      {!rule ? (
        <p class="muted">Fix the marked condition to see which accounts match.</p>
      ) : !ready ? (
        <p class="muted">Add a condition with a value to see which accounts match.</p>
      ) : state.error ? (
        <p class="error" role="alert">
          Could not preview: {state.error}
        </p>
      ) : state.preview ? (
        <>
          <p role="status" data-testid="preview-size">
            <strong>{state.preview.size.toLocaleString('en-US')}</strong> {state.preview.size === 1 ? 'account matches' : 'accounts match'}
            {state.busy ? ' (updating…)' : ''}
          </p>
          {state.preview.accounts.length > 0 && (
            <Table
              label="Matching accounts"
              testId="preview-accounts"
              caption={state.preview.size > state.preview.accounts.length ? `The first ${state.preview.accounts.length}` : 'All of them'}
              captionVisible
              columns={['Company', 'Domain', 'Company id']}
            >
              {state.preview.accounts.map((a) => (
                <tr key={a.companyId}>
                  <th scope="row">{a.name ?? '—'}</th>
                  <td>{a.domain ?? '—'}</td>
                  <td>
                    <code>{a.companyId}</code>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </>
      ) : (
        <p class="muted" role="status">
          Counting…
        </p>
      )}
    </section>
  );
}
