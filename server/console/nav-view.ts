/**
 * The console's sidebar: the pages grouped by the job they serve (Audience, Engage, Data, Setup), each group
 * holding only the pages the viewer may open (permissions-view.ts). The order of CONSOLE_PAGES still
 * decides the landing page; this module decides only where each page sits in the sidebar.
 *
 * Pages other issues are building are named here already (`home`, `alerts`, `notifications`): a name shows
 * once it is a console page — in CONSOLE_PAGES with its title and permission, and a `case` in App.tsx's
 * PageView — so the engineer adding one changes nothing here. A page added to CONSOLE_PAGES without a place
 * here fails nav-view.test.ts instead of going missing from the sidebar.
 *
 * There is no Exports entry: the raw page-view export is an API route (`GET /admin/api/customers/:id/events`,
 * NDJSON, in the OpenAPI document), and the reports download their own CSV (Visitors, an account, the audit log).
 */
import { CONSOLE_PAGES, type ConsolePage } from '../../core/console-links.ts';
import { GUIDE_TITLES, type GuidePage, hashForPage } from './guide-view.ts';
import { type Viewer, visiblePages } from './permissions-view.ts';

export interface NavGroup {
  id: string;
  title: string;
  /** Console pages or guides; names not (yet) pages are skipped. */
  items: readonly string[];
}

export const NAV_GROUPS: readonly NavGroup[] = [
  { id: 'audience', title: 'Audience', items: ['home', 'accounts', 'visitors', 'segments', 'lists'] },
  { id: 'engage', title: 'Engage', items: ['alerts', 'notifications', 'integrations'] },
  { id: 'data', title: 'Data', items: ['enrich'] },
  { id: 'setup', title: 'Setup', items: ['tags', 'webhooks', 'tokens', 'users', 'sso', 'audit', 'settings', 'developers'] },
];

/** Names in NAV_GROUPS that other issues are building: shown once they are console pages. */
export const ANNOUNCED_PAGES: readonly string[] = ['home', 'alerts', 'notifications'];

/** Guides in the sidebar's groups (every role sees them); "Get started" stays apart, above the groups. */
const NAV_GUIDES: readonly GuidePage[] = ['developers'];

export interface NavLink {
  page: ConsolePage | GuidePage;
  title: string;
  href: string;
}

export interface SidebarGroup {
  id: string;
  title: string;
  links: NavLink[];
}

const isConsolePage = (name: string): name is ConsolePage => (CONSOLE_PAGES as readonly string[]).includes(name);
const isNavGuide = (name: string): name is GuidePage => (NAV_GUIDES as readonly string[]).includes(name);

/** The sidebar of this viewer and customer: each group with the pages the role may open, empty groups left out. */
export function sidebarGroups(viewer: Viewer, customerId: string, pageTitles: Readonly<Record<ConsolePage, string>>): SidebarGroup[] {
  const visible = new Set<string>(visiblePages(viewer));
  return NAV_GROUPS.map((g) => ({
    id: g.id,
    title: g.title,
    links: g.items.flatMap((name): NavLink[] => {
      if (isConsolePage(name) && visible.has(name)) return [{ page: name, title: pageTitles[name], href: hashForPage(customerId, name) }];
      if (isNavGuide(name)) return [{ page: name, title: GUIDE_TITLES[name], href: hashForPage(customerId, name) }];
      return [];
    }),
  })).filter((g) => g.links.length > 0);
}
