/**
 * The account's engagement in its journey (the account page's range): how long its visitors had the
 * customer's pages visible, per page, and the custom events its pages sent (`svc('track', …)`), with the
 * latest ones and what they carried. From the web tag's engaged-time and custom-event beacons.
 */
import type { EngagementSummary } from '../../../core/engagement-records.ts';
import { formatDuration, propertiesText } from '../engagement-view.ts';
import { formatCount } from '../format.ts';
import { formatDateTime } from './datetime.ts';
import { EmptyState, Table } from './kit/index.ts';

export function AccountEngagement({ engagement }: { engagement: EngagementSummary | undefined }) {
  if (!engagement) return null;
  const none = engagement.engaged_seconds === 0 && engagement.events.length === 0;
  return (
    <section aria-labelledby="account-engagement-title" data-testid="account-engagement">
      <h3 id="account-engagement-title">Engagement</h3>
      {none ? (
        <EmptyState>No engaged time or custom events in this range.</EmptyState>
      ) : (
        <>
          <p>
            <strong data-testid="account-engaged-time">{formatDuration(engagement.engaged_seconds)}</strong> engaged on the site
            {engagement.events.length > 0 && (
              <>
                {' '}
                · <strong>{formatCount(engagement.events.reduce((n, e) => n + e.count, 0))}</strong> custom events
              </>
            )}
          </p>
          {engagement.pages.length > 0 && (
            <Table
              label="Engaged time per page"
              testId="account-engaged-pages"
              caption="Engaged time per page, most first"
              columns={['Page', { title: 'Engaged time', num: true }]}
              rowCount={engagement.pages.length}
            >
              {engagement.pages.map((p) => (
                <tr key={p.path}>
                  <td>
                    <code>{p.path}</code>
                  </td>
                  <td class="num">{formatDuration(p.engaged_seconds)}</td>
                </tr>
              ))}
            </Table>
          )}
          {engagement.events.length > 0 && (
            <Table
              label="Custom events"
              testId="account-events"
              caption="Custom events by name, most first"
              columns={['Event', { title: 'Count', num: true }]}
              rowCount={engagement.events.length}
            >
              {engagement.events.map((e) => (
                <tr key={e.name}>
                  <td>
                    <code>{e.name}</code>
                  </td>
                  <td class="num">{formatCount(e.count)}</td>
                </tr>
              ))}
            </Table>
          )}
          {engagement.recent_events.length > 0 && (
            <>
              <h4 id="account-recent-events-title">Latest events</h4>
              <ol class="plain" aria-labelledby="account-recent-events-title" data-testid="account-recent-events">
                {engagement.recent_events.map((e, i) => (
                  <li key={`${i}-${e.at}`}>
                    <code>{e.name}</code> <span class="muted">on</span> <code>{e.path}</code>{' '}
                    <span class="muted">
                      {formatDateTime(e.at)}
                      {Object.keys(e.properties).length > 0 && ` · ${propertiesText(e.properties)}`}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </>
      )}
    </section>
  );
}
