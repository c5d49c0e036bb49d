/**
 * Pure helpers of the account page's People tab: the words of the committee (its size, each group and
 * level, which contact details exist), the Enrichment credits line, what a refused reveal says, and the
 * CSV file's name. Pinned by committee-view.test.ts.
 */
import type { CommitteeAnswer, CommitteeGroup, CommitteePerson } from '../committee/schema.ts';
import type { CreditReport } from '../credits/report.ts';
import { formatCount } from './format.ts';

/** A group or level the classifier could not read from the title. */
export const UNCLASSIFIED = 'Unclassified';

export const groupLabel = (fn: string | null): string => fn ?? UNCLASSIFIED;
export const levelLabel = (level: string | null): string => level ?? UNCLASSIFIED;

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** "12 people at northwind.example (2 companies)", and what was left out of a big one. */
export function committeeSummary(c: Pick<CommitteeAnswer, 'domain' | 'companies' | 'total' | 'shown' | 'truncated'>): string {
  const where = c.domain ? `at ${c.domain}` : 'at this company';
  const companies = c.companies.length > 1 ? ` (${plural(c.companies.length, 'company', 'companies')})` : '';
  const base = `${plural(c.total, 'person', 'people')} ${where}${companies}`;
  return c.truncated ? `${base}; the ${formatCount(c.shown)} most senior shown` : base;
}

/** "Email, phone and mobile exist" / "Email exists" / "No contact details": what a reveal would show. */
export function contactsLine(p: Pick<CommitteePerson, 'has_email' | 'has_phone' | 'has_mobile'>): string {
  const have = [p.has_email && 'email', p.has_phone && 'phone', p.has_mobile && 'mobile'].filter((x): x is string => Boolean(x));
  if (have.length === 0) return 'No contact details';
  const words = have.length === 1 ? have[0]! : `${have.slice(0, -1).join(', ')} and ${have.at(-1)}`;
  return `${words[0]!.toUpperCase()}${words.slice(1)} ${have.length === 1 ? 'exists' : 'exist'}`;
}

/** The committee at a glance: people per function (rows) and level (columns, `levels` order), zeros included. */
export function committeeMatrix(groups: readonly CommitteeGroup[], levels: readonly string[]): { fn: string; counts: number[]; unclassified: number }[] {
  return groups.map((g) => ({
    fn: groupLabel(g.function),
    counts: levels.map((l) => g.levels.find((c) => c.level === l)?.people.length ?? 0),
    unclassified: g.levels.find((c) => c.level === null)?.people.length ?? 0,
  }));
}

/** The Enrichment pool's balance this contract year, as the People tab says it. */
export function enrichmentCredits(report: Pick<CreditReport, 'balances'>): { remaining: number; quota: number } | null {
  const b = report.balances.find((x) => x.pool === 'enrichment');
  return b ? { remaining: b.remaining, quota: b.quota } : null;
}

/** What a failed reveal says: out of credits (402) in plain words, else the server's own message. */
export function revealFailure(name: string, status: number, message: string): string {
  if (status === 402) {
    return `Could not reveal ${name}: no Enrichment credits are left this contract year (a reveal costs 1 credit, free again for the same person this month). Ask your customer success manager to add credits.`;
  }
  return `Could not reveal ${name}: ${message}`;
}

export const peopleCsvFileName = (customerId: string, companyId: string): string => `people-${customerId}-${companyId}.csv`;
