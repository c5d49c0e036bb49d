/** The admin token every benchmark's server is started with, and the admin API call the benchmarks seed with. */

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

/** POSTs `body` to the admin API of the server at `url`; a non-2xx answer is an error naming the path. */
export async function adminPost<T = Record<string, unknown>>(url: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(url + '/admin/api' + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`seeding ${url}${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<T>;
}
