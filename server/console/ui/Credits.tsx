/** Credit balances per pool (current contract year) and usage per API and month. */
import type { AdminClient } from '../admin-client.ts';
import { contractYearRange, formatCount, formatMonth } from '../format.ts';
import { usageTable } from '../usage.ts';
import { Table } from './kit/index.ts';
import { useLoad } from './use-load.ts';

export function Credits({ api, customerId }: { api: AdminClient; customerId: string }) {
  const report = useLoad(() => api.credits(customerId), [api, customerId]);
  const usage = report.data ? usageTable(report.data.usage) : null;
  return (
    <section aria-labelledby="credits-title" data-testid="credits">
      <h2 id="credits-title">Credits</h2>
      {report.error && (
        <p class="error" role="alert">
          Could not load the credits: {report.error}
        </p>
      )}
      {!report.data && !report.error && <p class="muted">Loading credits…</p>}
      {report.data && usage && (
        <div class="credits">
          <Table
            label="Balances this contract year"
            captionVisible
            caption={
              <>
                Balances this contract year
                {report.data.balances[0] && <span class="muted"> ({contractYearRange(report.data.balances[0].period, report.data.contract_start)})</span>}
              </>
            }
            columns={['Pool', { title: 'Quota', num: true }, { title: 'Used', num: true }, { title: 'Remaining', num: true }]}
          >
            {report.data.balances.map((b) => (
              <tr key={b.pool}>
                <th scope="row">{b.pool}</th>
                <td class="num">{formatCount(b.quota)}</td>
                <td class="num">{formatCount(b.used)}</td>
                <td class="num">
                  {formatCount(b.remaining)}
                  {b.quota > 0 && b.remaining <= b.quota / 10 && <span class="badge badge-warn">low</span>}
                </td>
              </tr>
            ))}
          </Table>
          <Table
            label="Charges per API and month"
            testId="usage-table"
            captionVisible
            caption="Charges per API and month"
            columns={['API', ...usage.months.map((m) => ({ title: formatMonth(m), key: m, num: true })), { title: 'Total', num: true }]}
            empty="No charges yet."
            rowCount={usage.rows.length}
          >
            {usage.rows.map((r) => (
              <tr key={`${r.pool}/${r.api}`}>
                <th scope="row">
                  {r.api} <span class="muted">({r.pool})</span>
                </th>
                {r.charges.map((c, i) => (
                  <td class="num" key={usage.months[i]}>
                    {formatCount(c)}
                    {r.partnerCharges[i] > 0 && <span class="muted"> ({formatCount(r.partnerCharges[i])} via partners)</span>}
                  </td>
                ))}
                <td class="num">{formatCount(r.total)}</td>
              </tr>
            ))}
          </Table>
        </div>
      )}
    </section>
  );
}
