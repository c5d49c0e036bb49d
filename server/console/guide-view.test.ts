import { describe, expect, it } from 'vitest';
import { CONSOLE_PAGES, namedPageFromHash, PAGE_TITLES } from '../../core/console-links.ts';
import { askedPageFromHash, consoleView, GUIDE_PAGES, guideFromHash, hashForPage, progressLabel, unavailableNotice, viewTitle } from './guide-view.ts';
import { OPERATOR, type Viewer, visiblePages } from './permissions-view.ts';

const user = (role: 'owner' | 'marketer' | 'viewer'): Viewer => ({ kind: 'user', email: `${role}@acme.example`, role, customerId: 'acme' });
const base = { customer: 'acme', asked: null, named: null, guide: null, onboarding: { complete: false } } as const;
/** The view of a fragment, read as the console reads it. */
const atHash = (viewer: Viewer, hash: string, onboarding: { complete: boolean } | null = { complete: false }) =>
  consoleView({ viewer, customer: 'acme', asked: askedPageFromHash(hash), named: namedPageFromHash(hash), guide: guideFromHash(hash), onboarding });

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
  it('a user lands on the checklist while it is not complete, on Home once it is (the checklist stays a link away)', () => {
    expect(consoleView({ ...base, viewer: user('marketer') })).toEqual({ kind: 'guide', page: 'start' });
    expect(consoleView({ ...base, viewer: user('marketer'), onboarding: { complete: true } })).toEqual({ kind: 'page', page: 'home' });
    expect(consoleView({ ...base, viewer: user('owner'), onboarding: { complete: true } })).toEqual({ kind: 'page', page: 'home' });
    expect(atHash(user('owner'), '#customer=acme&page=start', { complete: true })).toEqual({ kind: 'guide', page: 'start' });
  });
  it('waits for the checklist before choosing the landing; an unreadable one lands on Home', () => {
    expect(consoleView({ ...base, viewer: user('viewer'), onboarding: undefined })).toEqual({ kind: 'loading' });
    expect(consoleView({ ...base, viewer: user('viewer'), onboarding: null })).toEqual({ kind: 'page', page: 'home' });
  });
  it('a named page or guide is shown whatever the checklist says', () => {
    expect(atHash(user('marketer'), '#customer=acme&page=segments')).toEqual({ kind: 'page', page: 'segments' });
    expect(atHash(user('marketer'), '#customer=acme&page=developers')).toEqual({ kind: 'guide', page: 'developers' });
    expect(atHash(user('marketer'), '#customer=acme&page=start', { complete: true })).toEqual({ kind: 'guide', page: 'start' });
  });
  it('a page the role may not open is said to be unavailable, never swapped for another page', () => {
    for (const hash of ['#page=webhooks', '#customer=acme&page=webhooks']) {
      expect(atHash(user('marketer'), hash)).toEqual({ kind: 'unavailable', reason: 'forbidden', page: 'webhooks' });
    }
    expect(atHash(user('marketer'), '#customer=acme&page=tokens', { complete: true })).toEqual({ kind: 'unavailable', reason: 'forbidden', page: 'tokens' });
    expect(atHash(user('viewer'), '#customer=acme&page=integrations')).toEqual({ kind: 'unavailable', reason: 'forbidden', page: 'integrations' });
    expect(atHash(user('marketer'), '#customer=acme&page=integrations')).toEqual({ kind: 'page', page: 'integrations' });
    // Every role: each page is either shown or said unavailable, exactly as its permission says.
    for (const role of ['owner', 'marketer', 'viewer'] as const) {
      for (const page of CONSOLE_PAGES) {
        const view = atHash(user(role), `#customer=acme&page=${page}`);
        expect(view, `${role} ${page}`).toEqual(
          visiblePages(user(role)).includes(page) ? { kind: 'page', page } : { kind: 'unavailable', reason: 'forbidden', page },
        );
      }
    }
  });
  it('a page name the console does not know is said to be unknown, for the operator too', () => {
    expect(atHash(user('owner'), '#customer=acme&page=webhookz')).toEqual({ kind: 'unavailable', reason: 'unknown', asked: 'webhookz' });
    expect(atHash(OPERATOR, '#customer=acme&page=Visitors')).toEqual({ kind: 'unavailable', reason: 'unknown', asked: 'Visitors' });
    // No page named (or an empty one) is the landing, not an unknown page.
    expect(atHash(user('owner'), '#customer=acme&page=')).toEqual({ kind: 'guide', page: 'start' });
    expect(atHash(OPERATOR, '#customer=acme')).toEqual({ kind: 'page', page: 'tokens' });
  });
  it('the notice names the page, the role and what it lacks, and links home (the landing of the customer)', () => {
    const forbidden = unavailableNotice({ kind: 'unavailable', reason: 'forbidden', page: 'webhooks' }, user('marketer'), 'acme', PAGE_TITLES);
    expect(forbidden.message).toBe(
      'The Webhooks page is not available to your role (marketer): it needs the webhooks:read permission. Ask an owner or admin of your workspace if you need it.',
    );
    expect(forbidden.homeHref).toBe('#customer=acme');
    expect(forbidden.homeLabel).toBe('Go to the console home');
    expect(atHash(user('marketer'), forbidden.homeHref)).toEqual({ kind: 'guide', page: 'start' });
    const unknown = unavailableNotice({ kind: 'unavailable', reason: 'unknown', asked: 'webhookz' }, OPERATOR, 'a b&c', PAGE_TITLES);
    expect(unknown.message).toBe('The console has no page “webhookz”. The link may be mistyped or out of date.');
    expect(unknown.homeHref).toBe('#customer=a+b%26c');
    expect(viewTitle({ kind: 'unavailable', reason: 'forbidden', page: 'webhooks' }, PAGE_TITLES)).toBe('Webhooks: not available to your role');
    expect(viewTitle({ kind: 'unavailable', reason: 'unknown', asked: 'x' }, PAGE_TITLES)).toBe('Page not found');
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
