import { describe, expect, it } from 'vitest';
import { customerFromHash, hashForCustomer } from './customer-link.ts';

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
