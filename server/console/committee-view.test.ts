import { describe, expect, it } from 'vitest';
import type { CommitteeGroup } from '../committee/schema.ts';
import {
  committeeMatrix,
  committeeSummary,
  contactsLine,
  enrichmentCredits,
  groupLabel,
  levelLabel,
  peopleCsvFileName,
  revealFailure,
} from './committee-view.ts';

const person = (people_id: string, level: string | null, fn: string | null) => ({
  people_id,
  name: people_id,
  title: null,
  titleLevel: level,
  titleFunction: fn,
  location: { country: null, state: null, city: null },
  has_email: true,
  has_phone: false,
  has_mobile: false,
  company_id: '900001',
});

describe('the People tab in words', () => {
  it('says how many people, where, and what a big committee leaves out', () => {
    const one = { domain: 'northwind.example', companies: [{ company_id: '900001', name: 'N' }], total: 1, shown: 1, truncated: false };
    expect(committeeSummary(one)).toBe('1 person at northwind.example');
    const two = { ...one, companies: [...one.companies, { company_id: '900003', name: 'E' }], total: 1_234, shown: 500, truncated: true };
    expect(committeeSummary(two)).toBe('1,234 people at northwind.example (2 companies); the 500 most senior shown');
    expect(committeeSummary({ ...one, domain: null, total: 0, shown: 0 })).toBe('0 people at this company');
  });

  it('names which contact details exist, never what they are', () => {
    expect(contactsLine({ has_email: true, has_phone: true, has_mobile: true })).toBe('Email, phone and mobile exist');
    expect(contactsLine({ has_email: false, has_phone: true, has_mobile: true })).toBe('Phone and mobile exist');
    expect(contactsLine({ has_email: true, has_phone: false, has_mobile: false })).toBe('Email exists');
    expect(contactsLine({ has_email: false, has_phone: false, has_mobile: false })).toBe('No contact details');
  });

  it('labels a title the classifier cannot read as Unclassified', () => {
    expect(groupLabel(null)).toBe('Unclassified');
    expect(levelLabel('VP')).toBe('VP');
  });

  it('counts people per function and level, zeros included, unreadable levels apart', () => {
    const groups: CommitteeGroup[] = [
      {
        function: 'Marketing',
        count: 3,
        levels: [
          { level: 'VP', people: [person('P1', 'VP', 'Marketing')] },
          { level: 'Manager', people: [person('P2', 'Manager', 'Marketing'), person('P3', 'Manager', 'Marketing')] },
        ],
      },
      { function: null, count: 1, levels: [{ level: null, people: [person('P4', null, null)] }] },
    ];
    expect(committeeMatrix(groups, ['C-Level', 'VP', 'Director', 'Manager', 'Staff'])).toEqual([
      { fn: 'Marketing', counts: [0, 1, 0, 2, 0], unclassified: 0 },
      { fn: 'Unclassified', counts: [0, 0, 0, 0, 0], unclassified: 1 },
    ]);
  });

  it('reads the Enrichment balance from the credits report', () => {
    const balances = [
      { pool: 'identification' as const, period: 'year-0', quota: 100, used: 1, remaining: 99 },
      { pool: 'enrichment' as const, period: 'year-0', quota: 10_000, used: 3, remaining: 9_997 },
    ];
    expect(enrichmentCredits({ balances })).toEqual({ remaining: 9_997, quota: 10_000 });
    expect(enrichmentCredits({ balances: [] })).toBeNull();
  });

  it('says 402 as running out of credits, anything else as the server said it', () => {
    expect(revealFailure('Jane Doe', 402, 'quota exhausted: …')).toBe(
      'Could not reveal Jane Doe: no Enrichment credits are left this contract year (a reveal costs 1 credit, free again for the same person this month). Ask your customer success manager to add credits.',
    );
    expect(revealFailure('Jane Doe', 403, 'your role (viewer) may not do this')).toBe('Could not reveal Jane Doe: your role (viewer) may not do this');
    expect(peopleCsvFileName('demo', '100025')).toBe('people-demo-100025.csv');
  });
});
