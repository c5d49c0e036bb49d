import { describe, expect, it } from 'vitest';
import { accountFromHash, customerFromHash, hashForAccount, hashForCustomer, namedPageFromHash, pageFromHash } from './console-links.ts';

describe('customer link', () => {
  it('round-trips ids, including ones that need escaping', () => {
    for (const id of ['demo', 'globex', 'a b&c']) expect(customerFromHash(hashForCustomer(id))).toBe(id);
    expect(hashForCustomer('demo')).toBe('#customer=demo');
  });
  it('is empty without a customer', () => {
    expect(hashForCustomer(null)).toBe('');
    expect(customerFromHash('')).toBeNull();
    expect(customerFromHash('#customer=')).toBeNull();
    expect(customerFromHash('#other=1')).toBeNull();
  });
});

describe('console page link', () => {
  it('round-trips the page beside the customer; tokens is the default', () => {
    expect(hashForCustomer('demo', 'visitors')).toBe('#customer=demo&page=visitors');
    expect(pageFromHash(hashForCustomer('demo', 'tags'))).toBe('tags');
    expect(pageFromHash(hashForCustomer('demo', 'webhooks'))).toBe('webhooks');
    expect(customerFromHash(hashForCustomer('demo', 'tags'))).toBe('demo');
    expect(pageFromHash('#customer=demo')).toBe('tokens');
    expect(pageFromHash('#customer=demo&page=nonsense')).toBe('tokens');
  });
  it('knows the users and audit pages; tells a named page from none', () => {
    expect(pageFromHash(hashForCustomer('demo', 'users'))).toBe('users');
    expect(hashForCustomer('demo', 'audit')).toBe('#customer=demo&page=audit');
    expect(namedPageFromHash('#customer=demo')).toBeNull();
    expect(namedPageFromHash('#customer=demo&page=nonsense')).toBeNull();
    expect(namedPageFromHash('#customer=demo&page=tokens')).toBe('tokens');
  });
});

describe('account links', () => {
  it('open the Accounts page on one account, and read it back', () => {
    const hash = hashForAccount('acme', '900001');
    expect(hash).toBe('#customer=acme&page=accounts&account=900001');
    expect(namedPageFromHash(hash)).toBe('accounts');
    expect(accountFromHash(hash)).toBe('900001');
    expect(accountFromHash(hashForAccount('acme', null))).toBeNull();
  });
});
