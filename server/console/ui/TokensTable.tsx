/**
 * The customer's tokens (never secrets: only the display prefix) with their settings, dates, rotation
 * advice and row actions. Rotate and delete ask for confirmation in the row; errors stay in the row.
 */
import type { AdminClient, AdminToken, TokenWithSecret } from '../admin-client.ts';
import { displayPrefix } from '../format.ts';
import { formatDateTime } from './datetime.ts';
import { Button, Table } from './kit/index.ts';
import { RowConfirm } from './RowConfirm.tsx';
import { useRowAction } from './use-row-action.ts';

interface TableProps {
  api: AdminClient;
  tokens: AdminToken[];
  /** After a change that needs no secret shown (status, delete): an announcement for screen readers. */
  onChanged(message: string): void;
  onRotated(t: TokenWithSecret): void;
  /** Whether the row actions (activate, deactivate, rotate, delete) are offered: the viewer may write tokens. */
  canWrite?: boolean;
}

export function TokensTable({ api, tokens, onChanged, onRotated, canWrite = true }: TableProps) {
  if (!tokens.length) return <p class="muted">No tokens yet.</p>;
  return (
    <Table
      labelledBy="tokens-title"
      extraClass="tokens token-table"
      testId="tokens-table"
      columns={[
        'Name',
        'API group',
        'Prefix',
        'Integrations',
        'Allowed domains',
        'Answers',
        { title: 'Rate limit', num: true },
        'Status',
        'Dates',
        'Advice',
        canWrite && 'Actions',
      ]}
    >
      {tokens.map((t) => (
        <TokenRow key={t.id} api={api} token={t} onChanged={onChanged} onRotated={onRotated} canWrite={canWrite} />
      ))}
    </Table>
  );
}

const list = (items: string[]) => (items.length ? items.join(', ') : <span class="muted">—</span>);
const when = (at: string | null) => (at ? formatDateTime(at) : 'never');

function TokenRow({
  api,
  token: t,
  onChanged,
  onRotated,
  canWrite,
}: { api: AdminClient; token: AdminToken; canWrite: boolean } & Pick<TableProps, 'onChanged' | 'onRotated'>) {
  const { confirming, setConfirming, busy, error, run } = useRowAction<'rotate' | 'delete' | null>(null);
  const errorId = `token-error-${t.id}`;

  const toggle = () =>
    run(t.status === 'active' ? 'Deactivate' : 'Activate', async () => {
      const r = await api.setTokenActive(t.id, t.status !== 'active');
      onChanged(`Token ${r.name} is now ${r.status}.`);
    });
  const rotate = () => run('Rotate', async () => onRotated(await api.rotateToken(t.id)));
  const remove = () =>
    run('Delete', async () => {
      await api.deleteToken(t.id);
      onChanged(`Token ${t.name} deleted.`);
    });

  return (
    <tr data-testid="token-row" data-token-id={t.id} data-status={t.status}>
      <th scope="row">{t.name}</th>
      <td class="group">{t.api_group}</td>
      <td>
        <code data-testid="token-prefix">{displayPrefix(t.prefix)}</code>
      </td>
      <td class="long">{list(t.integrations)}</td>
      <td class="long">{list(t.allowed_domains)}</td>
      <td class="answers">
        <span class={t.scores ? '' : 'muted'}>scores {t.scores ? 'on' : 'off'}</span>
        <br />
        <span class={t.segment_names ? '' : 'muted'}>segment names {t.segment_names ? 'on' : 'off'}</span>
        {t.intent_topics && (
          <>
            <br />
            <span>intent topics on</span>
          </>
        )}
      </td>
      <td class="num">{t.rate_limit}/min</td>
      <td>
        <span class={`badge ${t.status === 'active' ? 'badge-ok' : 'badge-off'}`} data-testid="token-status">
          {t.status}
        </span>
      </td>
      <td class="dates">
        <dl>
          <dt>created</dt>
          <dd>{formatDateTime(t.created_at)}</dd>
          <dt>last used</dt>
          <dd>{when(t.last_used_at)}</dd>
          <dt>rotated</dt>
          <dd>{when(t.rotated_at)}</dd>
        </dl>
      </td>
      <td>
        {t.needs_rotation ? (
          <div class="advice" data-testid="rotation-advice">
            <span class="badge badge-warn">⚠ Rotate</span>
            <ul>
              {t.reasons.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          </div>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      {canWrite && (
        <td class="actions">
          {confirming ? (
            <RowConfirm
              label={`Confirm ${confirming} of ${t.name}`}
              message={
                confirming === 'rotate'
                  ? 'Rotate? The current secret stops working at once.'
                  : 'Delete this token? Integrations using it stop working; this cannot be undone.'
              }
              busy={busy}
              onCancel={() => setConfirming(null)}
            >
              <Button
                variant="danger"
                disabled={busy}
                onClick={confirming === 'rotate' ? rotate : remove}
                aria-describedby={error ? errorId : undefined}
                // The row names the token; the button's own words stay short so the Actions column stays narrow.
                aria-label={confirming === 'rotate' ? `Rotate ${t.name} now` : `Delete ${t.name}`}
              >
                {confirming === 'rotate' ? 'Rotate now' : 'Delete for good'}
              </Button>
            </RowConfirm>
          ) : (
            <div class="row-actions">
              <Button variant="quiet" disabled={busy} onClick={toggle} aria-label={`${t.status === 'active' ? 'Deactivate' : 'Activate'} ${t.name}`}>
                {t.status === 'active' ? 'Deactivate' : 'Activate'}
              </Button>
              <Button variant="quiet" disabled={busy} onClick={() => setConfirming('rotate')} aria-label={`Rotate ${t.name}`}>
                Rotate
              </Button>
              <Button variant="danger-quiet" disabled={busy} onClick={() => setConfirming('delete')} aria-label={`Delete ${t.name}`}>
                Delete
              </Button>
            </div>
          )}
          {error && (
            <p id={errorId} class="error" role="alert" data-testid="row-error">
              {error}
            </p>
          )}
        </td>
      )}
    </tr>
  );
}
