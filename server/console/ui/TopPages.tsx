/** The most viewed pages of a report (Visitors table, Account page): each path with its page views. */
import { formatCount } from '../format.ts';

export function TopPages({ pages, testId }: { pages: { path: string; page_views: number }[]; testId?: string }) {
  return (
    <ul class="plain" data-testid={testId}>
      {pages.map((p) => (
        <li key={p.path}>
          <code>{p.path}</code> <span class="muted">({formatCount(p.page_views)})</span>
        </li>
      ))}
    </ul>
  );
}
