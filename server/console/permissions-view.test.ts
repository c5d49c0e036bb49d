import { describe, expect, it } from 'vitest';
import { CONSOLE_PAGES } from '../../core/console-links.ts';
import { ROLES, type Role, roleMay } from '../../core/roles.ts';
import {
  can,
  customerFor,
  grantableRoles,
  OPERATOR,
  PAGE_PERMISSION,
  pageFor,
  pageRights,
  showsCustomerPicker,
  type Viewer,
  viewerFromMe,
  viewerLabel,
  visiblePages,
} from './permissions-view.ts';

const user = (role: Role): Viewer => ({ kind: 'user', email: `${role}@acme.test`, role, customerId: 'acme' });

describe('permissions view', () => {
  it('reads GET /auth/me: the operator, a user, and nothing for a role it does not know', () => {
    expect(viewerFromMe({ email: null, role: 'operator', customer_id: null })).toEqual(OPERATOR);
    expect(viewerFromMe({ email: 'm@acme.test', role: 'marketer', customer_id: 'acme' })).toEqual({
      kind: 'user',
      email: 'm@acme.test',
      role: 'marketer',
      customerId: 'acme',
    });
    expect(viewerFromMe({ email: 'x@acme.test', role: 'superuser', customer_id: 'acme' })).toBeNull();
    expect(viewerFromMe({ email: null, role: 'viewer', customer_id: 'acme' })).toBeNull();
  });

  it('the operator sees every page and may do everything, with the customer picker', () => {
    expect(visiblePages(OPERATOR)).toEqual([...CONSOLE_PAGES]);
    expect(Object.values(pageRights(OPERATOR)).every(Boolean)).toBe(true);
    expect(showsCustomerPicker(OPERATOR)).toBe(true);
    expect(grantableRoles(OPERATOR)).toEqual([...ROLES]);
  });

  it('each role sees the pages of core/roles.ts permissions', () => {
    expect(visiblePages(user('owner'))).toEqual([
      'tokens',
      'home',
      'visitors',
      'accounts',
      'segments',
      'lists',
      'enrich',
      'tags',
      'webhooks',
      'integrations',
      'alerts',
      'notifications',
      'users',
      'sso',
      'audit',
      'settings',
    ]);
    expect(visiblePages(user('admin'))).toEqual([
      'tokens',
      'home',
      'visitors',
      'accounts',
      'segments',
      'lists',
      'enrich',
      'tags',
      'webhooks',
      'integrations',
      'alerts',
      'notifications',
      'audit',
      'settings',
    ]);
    expect(visiblePages(user('marketer'))).toEqual([
      'home',
      'visitors',
      'accounts',
      'segments',
      'lists',
      'enrich',
      'tags',
      'integrations',
      'alerts',
      'notifications',
      'settings',
    ]);
    // A viewer reads the alerts, and has its own digest settings like every role.
    expect(visiblePages(user('viewer'))).toEqual([
      'home',
      'visitors',
      'accounts',
      'segments',
      'lists',
      'enrich',
      'tags',
      'alerts',
      'notifications',
      'settings',
    ]);
    for (const role of ROLES) {
      expect(showsCustomerPicker(user(role))).toBe(false);
      for (const page of CONSOLE_PAGES) expect(visiblePages(user(role)).includes(page)).toBe(roleMay(role, PAGE_PERMISSION[page]));
    }
  });

  it('buttons follow the write permissions: a marketer edits tag settings, segments and alerts only, a viewer nothing', () => {
    expect(pageRights(user('marketer'))).toEqual({
      tokensWrite: false,
      tagsWrite: false,
      tagSettingsWrite: true,
      webhooksWrite: false,
      segmentsWrite: true,
      integrationsWrite: false,
      alertsWrite: true,
    });
    expect(pageRights(user('viewer'))).toEqual({
      tokensWrite: false,
      tagsWrite: false,
      tagSettingsWrite: false,
      webhooksWrite: false,
      segmentsWrite: false,
      integrationsWrite: false,
      alertsWrite: false,
    });
    expect(pageRights(user('admin'))).toEqual({
      tokensWrite: true,
      tagsWrite: true,
      tagSettingsWrite: true,
      webhooksWrite: true,
      segmentsWrite: true,
      integrationsWrite: true,
      alertsWrite: true,
    });
    expect(can(user('admin'), 'users:manage')).toBe(false);
    expect(can(user('owner'), 'users:manage')).toBe(true);
  });

  it('a page the role may not see falls back to its first page; none named is the first too', () => {
    expect(pageFor(user('marketer'), 'tokens')).toBe('home');
    expect(pageFor(user('marketer'), 'webhooks')).toBe('home');
    expect(pageFor(user('marketer'), 'integrations')).toBe('integrations');
    expect(pageFor(user('viewer'), 'integrations')).toBe('home');
    expect(pageFor(user('marketer'), 'tags')).toBe('tags');
    expect(pageFor(user('marketer'), null)).toBe('home');
    expect(pageFor(user('admin'), 'users')).toBe('tokens');
    expect(pageFor(OPERATOR, null)).toBe('tokens');
    expect(pageFor(OPERATOR, 'audit')).toBe('audit');
  });

  it("a user's customer is their own unless the link names one (which the server then answers 404)", () => {
    expect(customerFor(user('viewer'), null)).toBe('acme');
    expect(customerFor(user('viewer'), 'globex')).toBe('globex');
    expect(customerFor(OPERATOR, null)).toBeNull();
    expect(customerFor(OPERATOR, 'globex')).toBe('globex');
  });

  it('only the operator and owners make owners', () => {
    expect(grantableRoles(user('owner'))).toEqual(['owner', 'admin', 'marketer', 'viewer']);
    expect(grantableRoles(user('admin'))).toEqual(['admin', 'marketer', 'viewer']);
  });

  it('labels who is signed in', () => {
    expect(viewerLabel(OPERATOR)).toBe('Operator (admin token)');
    expect(viewerLabel(user('marketer'))).toBe('marketer@acme.test · marketer');
  });
});
