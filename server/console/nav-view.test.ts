import { describe, expect, it } from 'vitest';
import { CONSOLE_PAGES, PAGE_TITLES } from '../../core/console-links.ts';
import type { Role } from '../../core/roles.ts';
import { GUIDE_PAGES } from './guide-view.ts';
import { ANNOUNCED_PAGES, NAV_GROUPS, sidebarGroups } from './nav-view.ts';
import { OPERATOR, type Viewer, visiblePages } from './permissions-view.ts';

const user = (role: Role): Viewer => ({ kind: 'user', email: `${role}@acme.test`, role, customerId: 'acme' });
/** The sidebar as titles per group, the way a reader sees it. */
const titles = (viewer: Viewer) => Object.fromEntries(sidebarGroups(viewer, 'acme', PAGE_TITLES).map((g) => [g.title, g.links.map((l) => l.title)]));

describe('the sidebar', () => {
  it('has a place for every console page, exactly once, and names nothing it does not know', () => {
    const named = NAV_GROUPS.flatMap((g) => g.items);
    expect(new Set(named).size).toBe(named.length);
    for (const page of CONSOLE_PAGES) expect(named, page).toContain(page);
    for (const name of named) expect([...CONSOLE_PAGES, ...GUIDE_PAGES, ...ANNOUNCED_PAGES], name).toContain(name);
  });

  it('groups by job: the owner sees every page of its role', () => {
    expect(titles(user('owner'))).toEqual({
      Audience: ['Home', 'Accounts', 'Visitors', 'Segments', 'Lists'],
      Engage: ['Alerts', 'Notifications', 'Integrations'],
      Data: ['Enrich a file'],
      Setup: ['Web tags', 'Webhooks', 'API tokens', 'Users', 'Single sign-on', 'Audit log', 'Settings', 'Developers'],
    });
    expect(titles(OPERATOR)).toEqual(titles(user('owner')));
  });

  it('each role sees exactly the pages it may open, plus the Developers guide', () => {
    expect(titles(user('admin')).Setup).toEqual(['Web tags', 'Webhooks', 'API tokens', 'Audit log', 'Settings', 'Developers']);
    expect(titles(user('marketer'))).toEqual({
      Audience: ['Home', 'Accounts', 'Visitors', 'Segments', 'Lists'],
      Engage: ['Alerts', 'Notifications', 'Integrations'],
      Data: ['Enrich a file'],
      Setup: ['Web tags', 'Settings', 'Developers'],
    });
    // A viewer reads the alerts (no Integrations) and has its own notifications.
    expect(titles(user('viewer'))).toEqual({
      Audience: ['Home', 'Accounts', 'Visitors', 'Segments', 'Lists'],
      Engage: ['Alerts', 'Notifications'],
      Data: ['Enrich a file'],
      Setup: ['Web tags', 'Settings', 'Developers'],
    });
    for (const role of ['owner', 'admin', 'marketer', 'viewer'] as const) {
      const pages = sidebarGroups(user(role), 'acme', PAGE_TITLES).flatMap((g) => g.links.map((l) => l.page));
      expect(pages.filter((p) => p !== 'developers').sort()).toEqual([...visiblePages(user(role))].sort());
    }
  });

  it('links name the customer and the page', () => {
    const setup = sidebarGroups(user('owner'), 'a b&c', PAGE_TITLES).find((g) => g.id === 'setup');
    expect(setup?.links.find((l) => l.page === 'sso')?.href).toBe('#customer=a+b%26c&page=sso');
    expect(setup?.links.find((l) => l.page === 'developers')?.href).toBe('#customer=a+b%26c&page=developers');
  });
});
