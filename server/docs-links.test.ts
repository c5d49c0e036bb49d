/**
 * README.md and the docs/ pages link to each other and into the repository by relative paths; a page
 * moved or a heading renamed must not leave a reader at a dead link. Every relative link resolves to a
 * file, and a `#fragment` into a Markdown file names one of its headings (GitHub's anchor rules).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** The text outside code: links shown as code are examples, not links. */
function prose(md: string): string {
  return md.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, 'code');
}

/** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(md: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of md.replace(/^\s*```[\s\S]*?^\s*```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function relativeLinks(md: string): string[] {
  return [...prose(md).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));
}

describe('links of README.md and docs/ resolve', () => {
  it('finds the pages and their links', () => {
    expect(PAGES).toContain('docs/configuration.md');
    expect(PAGES.flatMap((p) => relativeLinks(readFileSync(join(ROOT, p), 'utf8'))).length).toBeGreaterThan(20);
  });

  for (const page of PAGES) {
    it(page, () => {
      const dead: string[] = [];
      for (const href of relativeLinks(readFileSync(join(ROOT, page), 'utf8'))) {
        const [path, fragment] = href.split('#', 2) as [string, string | undefined];
        const target = path === '' ? join(ROOT, page) : join(dirname(join(ROOT, page)), decodeURIComponent(path));
        if (!existsSync(target)) {
          dead.push(`${href}: no file ${relative(ROOT, target)}`);
          continue;
        }
        if (fragment !== undefined && target.endsWith('.md') && !headingAnchors(readFileSync(target, 'utf8')).has(fragment)) {
          dead.push(`${href}: no heading with that anchor in ${relative(ROOT, target)}`);
        }
      }
      expect(dead).toEqual([]);
    });
  }

  it('reads anchors as GitHub writes them', () => {
    expect([...headingAnchors('## Bulk enrichment: the batch API and `svc enrich`\n## Analytics tools (GA4, Segment)\n## A\n## A')]).toEqual([
      'bulk-enrichment-the-batch-api-and-svc-enrich',
      'analytics-tools-ga4-segment',
      'a',
      'a-1',
    ]);
  });
});
