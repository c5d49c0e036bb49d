/**
 * The page a recorded path counts as: its query parameters collapsed but those the customer keeps apart
 * (`kept_query_params`). The visit store counts a view under this page (recorder.ts), so `/` and
 * `/?utm_source=x` are one row of the Visitors report and the account page; reports collapse what was
 * stored before that rule the same way (report.ts, server/accounts/account.ts). The raw view keeps the
 * path as the tag sent it (its `utm_*` for a warehouse's campaign attribution).
 */

/**
 * A path with its query parameters collapsed: only those named in `kept` stay (in their order), so
 * `/?utm_source=x` counts as `/` and, with `kept = ['plan']`, `/pricing?plan=pro&utm_medium=y` as
 * `/pricing?plan=pro`. The fragment goes too. A path that is not a URL path (OTHER_PATHS) is left alone.
 */
export function collapsePath(path: string, kept: readonly string[] = []): string {
  if (!path.startsWith('/')) return path;
  const q = path.search(/[?#]/);
  if (q === -1) return path;
  const pathname = path.slice(0, q);
  if (path[q] === '#' || kept.length === 0) return pathname;
  const url = new URL(path, 'http://path.invalid');
  const params = [...url.searchParams].filter(([k]) => kept.includes(k));
  return params.length ? `${pathname}?${new URLSearchParams(params)}` : pathname;
}

/** Page views per collapsed path, most viewed first (ties by path), at most `limit`. */
export function collapsedPages(
  pages: Iterable<{ path: string; page_views: number }>,
  kept: readonly string[],
  limit: number,
): { path: string; page_views: number }[] {
  const counts = new Map<string, number>();
  for (const p of pages) {
    const path = collapsePath(p.path, kept);
    counts.set(path, (counts.get(path) ?? 0) + p.page_views);
  }
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit)
    .map(([path, page_views]) => ({ path, page_views }));
}
