/**
 * The customer's segments as a table: name, the rule in words, its size (through the preview route), its
 * paid-media audience (./AudienceActions.tsx) and, with `segments:write`, edit and delete.
 */
import { useState } from 'preact/hooks';
import type { Segment } from '../../../../core/customer-records.ts';
import type { AdminClient } from '../../admin-client.ts';
import { type ProductChoice, ruleInWords, ruleKey } from '../../segment-rule-view.ts';
import { Button, Table } from '../kit/index.ts';
import { useLoad } from '../use-load.ts';
import { AudienceActions } from './AudienceActions.tsx';

export function SegmentList({
  api,
  customerId,
  segments,
  products,
  canWrite,
  onEdit,
  onDeleted,
}: {
  api: AdminClient;
  customerId: string;
  segments: readonly Segment[];
  products: readonly ProductChoice[];
  canWrite: boolean;
  onEdit(s: Segment): void;
  onDeleted(s: Segment): void;
}) {
  return (
    <Table
      label="Segments"
      extraClass="segments"
      testId="segments-table"
      columns={['Name', 'Rule', { title: 'Accounts', num: true }, 'Paid media', canWrite && 'Actions']}
    >
      {segments.map((s) => (
        <SegmentRow
          key={s.id}
          api={api}
          customerId={customerId}
          segment={s}
          products={products}
          canWrite={canWrite}
          onEdit={() => onEdit(s)}
          onDeleted={() => onDeleted(s)}
        />
      ))}
    </Table>
  );
}

function SegmentRow({
  api,
  customerId,
  segment,
  products,
  canWrite,
  onEdit,
  onDeleted,
}: {
  api: AdminClient;
  customerId: string;
  segment: Segment;
  products: readonly ProductChoice[];
  canWrite: boolean;
  onEdit(): void;
  onDeleted(): void;
}) {
  // The size comes from the preview route (segments:write); a read-only viewer sees the rule without it.
  const size = useLoad(
    () => (canWrite ? api.previewSegment(customerId, segment.match).then((p) => p.size) : Promise.resolve(null)),
    [api, customerId, ruleKey(segment.match), canWrite],
  );
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setError(null);
    try {
      await api.deleteSegment(customerId, segment.id);
      onDeleted();
    } catch (e) {
      setError((e as Error).message);
      setConfirming(false);
    }
  };
  return (
    <tr data-testid={`segment-${segment.id}`}>
      <th scope="row">
        {segment.name} <span class="muted">#{segment.id}</span>
      </th>
      <td data-testid="segment-rule">{ruleInWords(segment.match, products)}</td>
      <td class="num" data-testid="segment-size">
        {size.data != null ? size.data.toLocaleString('en-US') : size.error ? '?' : canWrite ? '…' : '—'}
      </td>
      <td>
        <AudienceActions api={api} customerId={customerId} segment={segment} canWrite={canWrite} />
      </td>
      {canWrite && (
        <td class="actions">
          <div class="row-actions">
            <Button variant="quiet" onClick={onEdit} aria-label={`Edit ${segment.name}`}>
              Edit
            </Button>
            {confirming ? (
              <>
                <Button variant="danger" onClick={remove}>
                  Delete “{segment.name}”
                </Button>
                <Button variant="quiet" onClick={() => setConfirming(false)}>
                  Keep
                </Button>
              </>
            ) : (
              <Button variant="danger-quiet" onClick={() => setConfirming(true)} aria-label={`Delete ${segment.name}`}>
                Delete
              </Button>
            )}
          </div>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
        </td>
      )}
    </tr>
  );
}
