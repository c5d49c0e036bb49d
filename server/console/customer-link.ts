/** The selected customer lives in the URL fragment (`#customer=demo`), so a reload or a shared link keeps it. */

export function customerFromHash(hash: string): string | null {
  const value = new URLSearchParams(hash.replace(/^#/, '')).get('customer');
  return value ? value : null;
}

export function hashForCustomer(id: string | null): string {
  return id ? `#${new URLSearchParams({ customer: id })}` : '';
}
