/**
 * Retention and the disk budget of the page-view log (event-log.ts): day files older than the retention
 * are deleted, then, while the files left are over the budget, whole oldest days first (today's last), so
 * what is kept is recent.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.ndjson$/;

export interface PruneResult {
  /** Files deleted. */
  removed: number;
  /** Whether the files were over the budget (some then deleted for it). */
  overBudget: boolean;
}

/**
 * Deletes the day files under `dir` (`<customer>/<YYYY-MM-DD>.ndjson`) past `retentionDays` before `now`,
 * then over `maxTotalBytes`; `forget` is told each path deleted for the budget as soon as it is gone.
 */
export async function pruneDayFiles(
  dir: string,
  retentionDays: number,
  maxTotalBytes: number,
  now: Date,
  forget: (path: string) => void,
): Promise<PruneResult> {
  const oldest = new Date(now.getTime() - retentionDays * 86_400_000).toISOString().slice(0, 10);
  let removed = 0;
  let customers: string[];
  try {
    customers = await readdir(dir);
  } catch {
    return { removed: 0, overBudget: false }; // nothing written yet
  }
  const kept: { path: string; day: string; size: number }[] = [];
  for (const customer of customers) {
    let names: string[];
    try {
      names = await readdir(join(dir, customer));
    } catch {
      continue;
    }
    for (const f of names) {
      const m = DAY_FILE.exec(f);
      if (!m) continue;
      const path = join(dir, customer, f);
      if (m[1] < oldest) {
        await rm(path, { force: true });
        removed++;
      } else {
        kept.push({
          path,
          day: m[1],
          size: await stat(path).then(
            (s) => s.size,
            () => 0,
          ),
        });
      }
    }
  }
  let total = kept.reduce((sum, f) => sum + f.size, 0);
  const overBudget = total > maxTotalBytes;
  if (overBudget) {
    kept.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : b.size - a.size));
    for (const f of kept) {
      if (total <= maxTotalBytes) break;
      await rm(f.path, { force: true });
      total -= f.size;
      removed++;
      forget(f.path);
    }
  }
  return { removed, overBudget };
}
