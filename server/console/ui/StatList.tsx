/** A report's totals in a row (Visitors, Account pages): each number in bold, then what it counts. */
import { formatCount } from '../format.ts';

export function StatList({ testId, stats }: { testId: string; stats: [count: number, label: string][] }) {
  return (
    <ul class="stats" data-testid={testId}>
      {stats.map(([count, label]) => (
        <li key={label}>
          <strong>{formatCount(count)}</strong> {label}
        </li>
      ))}
    </ul>
  );
}
