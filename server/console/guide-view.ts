/**
 * Which page the console shows, the two guide pages included: "Get started" (the onboarding checklist)
 * and "Developers" (the tag, its events, the dataLayer, webhooks). They live in the fragment like the
 * other pages (`#customer=acme&page=start`) but are not tabs of the page nav: every role sees them.
 *
 * Landing: a fragment that names no page is the landing. A signed-in user lands on the checklist while
 * their customer's onboarding is not complete, then on their first page; the operator (who looks after
 * every customer, not one) lands on the customer's first page as before. With no customer chosen the
 * operator sees the customer picker as the page itself — never a page title over nothing.
 */
import type { ConsolePage } from './customer-link.ts';
import { pageFor, type Viewer } from './permissions-view.ts';

export const GUIDE_PAGES = ['start', 'developers'] as const;
export type GuidePage = (typeof GUIDE_PAGES)[number];
export const GUIDE_TITLES: Readonly<Record<GuidePage, string>> = { start: 'Get started', developers: 'Developers' };

const params = (hash: string) => new URLSearchParams(hash.replace(/^#/, ''));

/** The guide page the fragment names, or null. */
export function guideFromHash(hash: string): GuidePage | null {
  const value = params(hash).get('page');
  return (GUIDE_PAGES as readonly string[]).includes(value ?? '') ? (value as GuidePage) : null;
}

/**
 * A link to one page of a customer that always names the page (`hashForCustomer` leaves the tokens page
 * out, and a fragment naming no page is the landing, which may be the checklist).
 */
export function hashForPage(customerId: string, page: ConsolePage | GuidePage): string {
  return `#${new URLSearchParams({ customer: customerId, page })}`;
}

/** What the main area shows. */
export type ConsoleView = { kind: 'pick-customer' } | { kind: 'loading' } | { kind: 'page'; page: ConsolePage } | { kind: 'guide'; page: GuidePage };

export interface ViewInput {
  viewer: Viewer;
  /** The customer shown (null: none chosen yet). */
  customer: string | null;
  /** What the fragment names. */
  named: ConsolePage | null;
  guide: GuidePage | null;
  /** The customer's onboarding: undefined while loading, null when it could not be read. */
  onboarding: { complete: boolean } | null | undefined;
}

export function consoleView({ viewer, customer, named, guide, onboarding }: ViewInput): ConsoleView {
  if (customer === null) return viewer.kind === 'operator' ? { kind: 'pick-customer' } : { kind: 'loading' };
  if (guide) return { kind: 'guide', page: guide };
  if (named !== null || viewer.kind === 'operator') return { kind: 'page', page: pageFor(viewer, named) };
  if (onboarding === undefined) return { kind: 'loading' };
  // An unreadable checklist never keeps anyone from their pages: the first one is the landing then.
  return onboarding !== null && !onboarding.complete ? { kind: 'guide', page: 'start' } : { kind: 'page', page: pageFor(viewer, null) };
}

/** The title of the main area (h1). */
export function viewTitle(view: ConsoleView, pageTitles: Readonly<Record<ConsolePage, string>>): string {
  if (view.kind === 'pick-customer') return 'Choose a customer';
  if (view.kind === 'loading') return 'svc console';
  return view.kind === 'guide' ? GUIDE_TITLES[view.page] : pageTitles[view.page];
}

/** "2 of 4" for the Get started link; null once complete. */
export function progressLabel(status: { steps: { done: boolean }[]; complete: boolean } | null | undefined): string | null {
  if (!status || status.complete) return null;
  return `${status.steps.filter((s) => s.done).length} of ${status.steps.length}`;
}
