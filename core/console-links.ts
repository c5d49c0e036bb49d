/**
 * Links into the console: the selected customer and console page live in the URL fragment
 * (`#customer=demo&page=visitors`), so a reload or a shared link keeps them. In the neutral core because
 * the server builds such links too (Slack messages, the onboarding checklist) and must build them as the
 * console reads them.
 */

export const CONSOLE_PAGES = [
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
] as const;
export type ConsolePage = (typeof CONSOLE_PAGES)[number];
export const PAGE_TITLES: Record<ConsolePage, string> = {
  tokens: 'API tokens',
  home: 'Home',
  visitors: 'Visitors',
  accounts: 'Accounts',
  segments: 'Segments',
  lists: 'Lists',
  enrich: 'Enrich a file',
  tags: 'Web tags',
  webhooks: 'Webhooks',
  integrations: 'Integrations',
  alerts: 'Alerts',
  notifications: 'Notifications',
  users: 'Users',
  sso: 'Single sign-on',
  audit: 'Audit log',
  settings: 'Settings',
};

const params = (hash: string) => new URLSearchParams(hash.replace(/^#/, ''));

export function customerFromHash(hash: string): string | null {
  const value = params(hash).get('customer');
  return value ? value : null;
}

/** The page the fragment names, or null when it names none or an unknown one. */
export function namedPageFromHash(hash: string): ConsolePage | null {
  const value = params(hash).get('page');
  return (CONSOLE_PAGES as readonly string[]).includes(value ?? '') ? (value as ConsolePage) : null;
}

/** The page named in the fragment; the tokens page when none or an unknown one is named. */
export function pageFromHash(hash: string): ConsolePage {
  return namedPageFromHash(hash) ?? 'tokens';
}

export function hashForCustomer(id: string | null, page: ConsolePage = 'tokens'): string {
  if (!id) return '';
  return `#${new URLSearchParams(page === 'tokens' ? { customer: id } : { customer: id, page })}`;
}

/** The account the Accounts page shows (`#customer=acme&page=accounts&account=900001`), or null. */
export function accountFromHash(hash: string): string | null {
  return params(hash).get('account') || null;
}

/** The Accounts page of a customer, opened on one account (or on its search box alone). */
export function hashForAccount(customerId: string, companyId: string | null): string {
  return `#${new URLSearchParams({ customer: customerId, page: 'accounts', ...(companyId ? { account: companyId } : {}) })}`;
}
