import { describe, expect, it } from 'vitest';
import { PAGE_TITLES } from './customer-link.ts';
import { consoleView, GUIDE_PAGES, guideFromHash, hashForPage, progressLabel, viewTitle } from './guide-view.ts';
import { OPERATOR, type Viewer } from './permissions-view.ts';

const user = (role: 'owner' | 'marketer' | 'viewer'): Viewer => ({ kind: 'user', email: `${role}@acme.example`, role, customerId: 'acme' });
const base = { customer: 'acme', named: null, guide: null, onboarding: { complete: false } } as const;

describe('guide pages in the fragment', () => {
  it('round-trip beside the customer, and are no console page', () => {
    for (const page of GUIDE_PAGES) expect(guideFromHash(hashForPage('a b&c', page))).toBe(page);
    expect(guideFromHash('#customer=acme')).toBeNull();
    expect(guideFromHash('#customer=acme&page=visitors')).toBeNull();
    expect(guideFromHash('#customer=acme&page=nonsense')).toBeNull();
  });
  it('links to every page name it, the tokens page too (no page named is the landing)', () => {
    expect(hashForPage('acme', 'tokens')).toBe('#customer=acme&page=tokens');
    expect(hashForPage('acme', 'developers')).toBe('#customer=acme&page=developers');
  });
});

describe('what the console shows', () => {
  it('a user lands on the checklist while it is not complete, on their first page once it is', () => {
    expect(consoleView({ ...base, viewer: user('marketer') })).toEqual({ kind: 'guide', page: 'start' });
    expect(consoleView({ ...base, viewer: user('marketer'), onboarding: { complete: true } })).toEqual({ kind: 'page', page: 'visitors' });
    expect(consoleView({ ...base, viewer: user('owner'), onboarding: { complete: true } })).toEqual({ kind: 'page', page: 'tokens' });
  });
  it('waits for the checklist before choosing the landing; an unreadable one lands on the first page', () => {
    expect(consoleView({ ...base, viewer: user('viewer'), onboarding: undefined })).toEqual({ kind: 'loading' });
    expect(consoleView({ ...base, viewer: user('viewer'), onboarding: null })).toEqual({ kind: 'page', page: 'visitors' });
  });
  it('a named page or guide is shown whatever the checklist says', () => {
    expect(consoleView({ ...base, viewer: user('marketer'), named: 'segments' })).toEqual({ kind: 'page', page: 'segments' });
    expect(consoleView({ ...base, viewer: user('marketer'), guide: 'developers' })).toEqual({ kind: 'guide', page: 'developers' });
    expect(consoleView({ ...base, viewer: user('marketer'), onboarding: { complete: true }, guide: 'start' })).toEqual({ kind: 'guide', page: 'start' });
    // A page the role may not see falls back to its first page, not to the checklist.
    expect(consoleView({ ...base, viewer: user('marketer'), named: 'tokens' })).toEqual({ kind: 'page', page: 'visitors' });
  });
  it('the operator picks a customer first (never an empty page), then lands on its first page', () => {
    expect(consoleView({ ...base, viewer: OPERATOR, customer: null })).toEqual({ kind: 'pick-customer' });
    expect(viewTitle({ kind: 'pick-customer' }, PAGE_TITLES)).toBe('Choose a customer');
    expect(consoleView({ ...base, viewer: OPERATOR })).toEqual({ kind: 'page', page: 'tokens' });
    expect(consoleView({ ...base, viewer: OPERATOR, guide: 'start' })).toEqual({ kind: 'guide', page: 'start' });
  });
  it('titles each view', () => {
    expect(viewTitle({ kind: 'guide', page: 'start' }, PAGE_TITLES)).toBe('Get started');
    expect(viewTitle({ kind: 'guide', page: 'developers' }, PAGE_TITLES)).toBe('Developers');
    expect(viewTitle({ kind: 'page', page: 'audit' }, PAGE_TITLES)).toBe('Audit log');
  });
});

describe('progressLabel', () => {
  it('counts the steps done until all are', () => {
    const steps = [{ done: true }, { done: false }, { done: true }, { done: false }];
    expect(progressLabel({ steps, complete: false })).toBe('2 of 4');
    expect(progressLabel({ steps: steps.map(() => ({ done: true })), complete: true })).toBeNull();
    expect(progressLabel(undefined)).toBeNull();
  });
});
