/**
 * What the signed-in person sees in the console. The operator (admin token) sees every customer and every
 * page; a user sees their own customer only (no picker), and only the pages and buttons their role's
 * permissions allow (core/roles.ts, the same table the server enforces: hiding is a courtesy, the server's
 * 403/404 is the rule).
 */

import { CONSOLE_PAGES, type ConsolePage } from '../../core/console-links.ts';
import { type Permission, ROLES, type Role, roleMay } from '../../core/roles.ts';

export type Viewer = { kind: 'operator' } | { kind: 'user'; email: string; role: Role; customerId: string };

export const OPERATOR: Viewer = { kind: 'operator' };

/** `GET /auth/me` as the server answers it. */
export interface Me {
  email: string | null;
  role: string;
  customer_id: string | null;
}

/** The viewer an answer of `GET /auth/me` describes; null for one the console cannot use (an unknown role). */
export function viewerFromMe(me: Me): Viewer | null {
  if (me.role === 'operator') return OPERATOR;
  if (!(ROLES as readonly string[]).includes(me.role) || !me.email || !me.customer_id) return null;
  return { kind: 'user', email: me.email, role: me.role as Role, customerId: me.customer_id };
}

export function can(viewer: Viewer, permission: Permission): boolean {
  return viewer.kind === 'operator' || roleMay(viewer.role, permission);
}

/** The permission a page needs to be shown at all (its buttons need the matching `:write`). */
export const PAGE_PERMISSION: Readonly<Record<ConsolePage, Permission>> = {
  tokens: 'tokens:read',
  home: 'reports:read',
  visitors: 'reports:read',
  accounts: 'reports:read',
  segments: 'reports:read',
  lists: 'reports:read',
  enrich: 'reports:read',
  tags: 'tags:read',
  webhooks: 'webhooks:read',
  integrations: 'integrations:read',
  alerts: 'alerts:read',
  // One's own digest settings: every role has them (the operator is told they are per user).
  notifications: 'reports:read',
  users: 'users:manage',
  sso: 'users:manage',
  audit: 'audit:read',
  // The workspace's settings (the intent topics it follows): every role reads them, `segments:write` changes them.
  settings: 'reports:read',
};

/** The pages the viewer sees, in CONSOLE_PAGES order (the landing is the first; the sidebar orders them by job: nav-view.ts). */
export function visiblePages(viewer: Viewer): ConsolePage[] {
  return CONSOLE_PAGES.filter((p) => can(viewer, PAGE_PERMISSION[p]));
}

/** The page to show: the one asked for when the viewer may see it, else their first page. */
export function pageFor(viewer: Viewer, requested: ConsolePage | null): ConsolePage {
  const pages = visiblePages(viewer);
  return requested !== null && pages.includes(requested) ? requested : (pages[0] ?? 'visitors');
}

/** The customer to show: the one named in the link (the operator's choice), a user's own when none is named. */
export function customerFor(viewer: Viewer, requested: string | null): string | null {
  return requested ?? (viewer.kind === 'user' ? viewer.customerId : null);
}

/** Only the operator chooses among customers. */
export const showsCustomerPicker = (viewer: Viewer): boolean => viewer.kind === 'operator';

/** The roles the viewer may give (invite, role change): only the operator or an owner makes owners. */
export function grantableRoles(viewer: Viewer): Role[] {
  return ROLES.filter((r) => r !== 'owner' || viewer.kind === 'operator' || viewer.role === 'owner');
}

/** What the top bar says about who is signed in. */
export function viewerLabel(viewer: Viewer): string {
  return viewer.kind === 'operator' ? 'Operator (admin token)' : `${viewer.email} · ${viewer.role}`;
}

/** What each button family of the pages needs. */
export interface PageRights {
  tokensWrite: boolean;
  tagsWrite: boolean;
  tagSettingsWrite: boolean;
  webhooksWrite: boolean;
  segmentsWrite: boolean;
  integrationsWrite: boolean;
  alertsWrite: boolean;
}

export function pageRights(viewer: Viewer): PageRights {
  return {
    tokensWrite: can(viewer, 'tokens:write'),
    tagsWrite: can(viewer, 'tags:write'),
    tagSettingsWrite: can(viewer, 'tag-settings:write'),
    webhooksWrite: can(viewer, 'webhooks:write'),
    segmentsWrite: can(viewer, 'segments:write'),
    integrationsWrite: can(viewer, 'integrations:write'),
    alertsWrite: can(viewer, 'alerts:write'),
  };
}
