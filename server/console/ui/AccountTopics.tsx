/**
 * The account page's third-party intent topics: of the topics the workspace follows (Settings), those the
 * account has scores for — its score this week, whether it surges (≥ 60), and its trend by week as a
 * sparkline (its words for screen readers). Without followed topics it says where to choose them.
 */
import { hashForCustomer } from '../../../core/console-links.ts';
import type { AccountPage as AccountData } from '../../accounts/account.ts';
import type { AccountTopicTrend } from '../../accounts/topics.ts';
import { changeLabel, quietTopics, sparkline, trendChange, trendWords, weekLabel } from '../topics-view.ts';
import { EmptyState, Table } from './kit/index.ts';

const CHART = { width: 120, height: 28 };

export function AccountTopics({ data, customerId }: { data: AccountData; customerId: string }) {
  const topics = data.topics;
  const settings = <a href={hashForCustomer(customerId, 'settings')}>Settings</a>;
  return (
    <section aria-labelledby="account-surge-title" data-testid="account-surge">
      <h3 id="account-surge-title">Surging topics</h3>
      {!topics || topics.latest_week === null ? (
        <EmptyState testId="account-surge-none">The dataset holds no third-party topics yet (an operator imports them).</EmptyState>
      ) : topics.followed.length === 0 ? (
        <EmptyState testId="account-surge-choose">Your workspace follows no topics yet: choose them in {settings}.</EmptyState>
      ) : (
        <>
          <p class="muted">
            Third-party research on the topics you follow, week of {weekLabel(topics.latest_week)}: a score of 60 or more is a surge (far more reading than the
            account usually does). Change the topics in {settings}.
          </p>
          <Table
            labelledBy="account-surge-title"
            testId="account-surge-table"
            columns={['Topic', { title: 'This week', num: true }, 'Surging', { title: 'Trend by week', key: 'trend' }]}
            empty="No scores for this account on the topics you follow."
            rowCount={topics.topics.length}
          >
            {topics.topics.map((t) => (
              <TopicRow key={t.name} topic={t} />
            ))}
          </Table>
          {quietTopics(topics.followed, topics.topics).length > 0 && topics.topics.length > 0 && (
            <p class="hint" data-testid="account-surge-quiet">
              No scores lately on: {quietTopics(topics.followed, topics.topics).join(', ')}.
            </p>
          )}
        </>
      )}
    </section>
  );
}

function TopicRow({ topic }: { topic: AccountTopicTrend }) {
  const line = sparkline(topic.trend, CHART.width, CHART.height);
  const change = changeLabel(trendChange(topic.trend));
  const words = `Scores by week: ${trendWords(topic.trend)}`;
  return (
    <tr data-testid="account-surge-row">
      <th scope="row">{topic.name}</th>
      <td class="num">{topic.score ?? '—'}</td>
      <td>{topic.surging ? <span class="badge badge-hot">Surging</span> : <span class="muted">no</span>}</td>
      <td class="topic-trend">
        <svg
          role="img"
          aria-label={words}
          width={CHART.width}
          height={CHART.height}
          viewBox={`-3 -3 ${CHART.width + 6} ${CHART.height + 6}`}
          class="sparkline"
          data-testid="account-surge-trend"
        >
          <title>{words}</title>
          <line x1="0" x2={CHART.width} y1={line.threshold} y2={line.threshold} class="sparkline-threshold" />
          <polyline points={line.points} class="sparkline-line" />
          {line.last && <circle cx={line.last.x} cy={line.last.y} r="2.5" class="sparkline-last" />}
        </svg>{' '}
        {change && <span class="muted">{change}</span>}
      </td>
    </tr>
  );
}
