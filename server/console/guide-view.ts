/**
 * Which page the console shows, the two guide pages included: "Get started" (the onboarding checklist)
 * and "Developers" (the tag, its events, the dataLayer, webhooks). They live in the fragment like the
 * other pages (`#customer=acme&page=start`) but are not tabs of the page nav: every role sees them.
 *
 * Landing: a fragment that names no page is the landing. A signed-in user lands on the checklist while
 * their customer's onboarding is not complete, then on Home (their first page when their role has no Home); the operator (who looks after
 * every customer, not one) lands on the customer's first page as before. With no customer chosen the
 * operator sees the customer picker as the page itself — never a page title over nothing.
 *
 * A fragment naming a page that does not exist, or one the viewer's role may not open, says so with a
 * link home: showing another page instead would hide that the link was wrong or what the role lacks.
 */
import type { ConsolePage } from '../../core/console-links.ts';
import { PAGE_PERMISSION, pageFor, type Viewer, visiblePages } from './permissions-view.ts';

export const GUIDE_PAGES = ['start', 'developers'] as const;
export type GuidePage = (typeof GUIDE_PAGES)[number];
export const GUIDE_TITLES: Readonly<Record<GuidePage, string>> = { start: 'Get started', developers: 'Developers' };

const params = (hash: string) => new URLSearchParams(hash.replace(/^#/, ''));

/** The guide page the fragment names, or null. */
export function guideFromHash(hash: string): GuidePage | null {
  const value = params(hash).get('page');
  return (GUIDE_PAGES as readonly string[]).includes(value ?? '') ? (value as GuidePage) : null;
}

/** The page the fragment names as written (a console page, a guide page or anything else), or null for none. */
export function askedPageFromHash(hash: string): string | null {
  return params(hash).get('page') || null;
}

/**
 * A link to one page of a customer that always names the page (`hashForCustomer` leaves the tokens page
 * out, and a fragment naming no page is the landing, which may be the checklist).
 */
export function hashForPage(customerId: string, page: ConsolePage | GuidePage): string {
  return `#${new URLSearchParams({ customer: customerId, page })}`;
}

/** What the main area shows. */
export type ConsoleView =
  | { kind: 'pick-customer' }
  | { kind: 'loading' }
  | { kind: 'page'; page: ConsolePage }
  | { kind: 'guide'; page: GuidePage }
  /** The fragment names no page of the console (`unknown`), or one the viewer's role may not open (`forbidden`). */
  | { kind: 'unavailable'; reason: 'unknown'; asked: string }
  | { kind: 'unavailable'; reason: 'forbidden'; page: ConsolePage };

export interface ViewInput {
  viewer: Viewer;
  /** The customer shown (null: none chosen yet). */
  customer: string | null;
  /** What the fragment names: as written (askedPageFromHash), and as a console or guide page when it is one. */
  asked: string | null;
  named: ConsolePage | null;
  guide: GuidePage | null;
  /** The customer's onboarding: undefined while loading, null when it could not be read. */
  onboarding: { complete: boolean } | null | undefined;
}

export function consoleView({ viewer, customer, asked, named, guide, onboarding }: ViewInput): ConsoleView {
  if (customer === null) return viewer.kind === 'operator' ? { kind: 'pick-customer' } : { kind: 'loading' };
  if (guide) return { kind: 'guide', page: guide };
  if (asked !== null && named === null) return { kind: 'unavailable', reason: 'unknown', asked };
  if (named !== null && !visiblePages(viewer).includes(named)) return { kind: 'unavailable', reason: 'forbidden', page: named };
  if (named !== null || viewer.kind === 'operator') return { kind: 'page', page: pageFor(viewer, named) };
  if (onboarding === undefined) return { kind: 'loading' };
  // An unreadable checklist never keeps anyone from their pages: Home is the landing then.
  return onboarding !== null && !onboarding.complete ? { kind: 'guide', page: 'start' } : { kind: 'page', page: landingPage(viewer) };
}

/** A user's landing once the checklist is done: Home (what changed this week) when the role may see it, else their first page. */
export function landingPage(viewer: Viewer): ConsolePage {
  return visiblePages(viewer).includes('home') ? 'home' : pageFor(viewer, null);
}

/** The title of the main area (h1). */
export function viewTitle(view: ConsoleView, pageTitles: Readonly<Record<ConsolePage, string>>): string {
  if (view.kind === 'pick-customer') return 'Choose a customer';
  if (view.kind === 'loading') return 'svc console';
  if (view.kind === 'unavailable') return view.reason === 'unknown' ? 'Page not found' : `${pageTitles[view.page]}: not available to your role`;
  return view.kind === 'guide' ? GUIDE_TITLES[view.page] : pageTitles[view.page];
}

/** "2 of 4" for the Get started link; null once complete. */
export function progressLabel(status: { steps: { done: boolean }[]; complete: boolean } | null | undefined): string | null {
  if (!status || status.complete) return null;
  return `${status.steps.filter((s) => s.done).length} of ${status.steps.length}`;
}

/** What the main area says instead of a page the fragment names but the viewer cannot have, and the way home. */
export function unavailableNotice(
  view: Extract<ConsoleView, { kind: 'unavailable' }>,
  viewer: Viewer,
  customerId: string,
  pageTitles: Readonly<Record<ConsolePage, string>>,
): { message: string; homeHref: string; homeLabel: string } {
  // The landing (no page named): the checklist while it is open, else the viewer's first page.
  const home = { homeHref: `#${new URLSearchParams({ customer: customerId })}`, homeLabel: 'Go to the console home' };
  if (view.reason === 'unknown') return { message: `The console has no page “${view.asked}”. The link may be mistyped or out of date.`, ...home };
  const role = viewer.kind === 'user' ? viewer.role : 'operator';
  return {
    message: `The ${pageTitles[view.page]} page is not available to your role (${role}): it needs the ${PAGE_PERMISSION[view.page]} permission. Ask an owner or admin of your workspace if you need it.`,
    ...home,
  };
}
