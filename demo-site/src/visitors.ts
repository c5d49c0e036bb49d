/** The demo server's visitor list (`GET /demo/api/visitors`, demo mode only) and URL helpers. */

export type VisitorKind = 'company' | 'isp' | 'hosting' | 'bot' | 'none';

export interface DemoVisitor {
  label: string;
  ip: string;
  kind: VisitorKind | string;
  company?: string;
}

/** The visitors, or null when the endpoint is absent (not demo mode) or answers nonsense. */
export async function fetchVisitors(f: typeof fetch = fetch): Promise<DemoVisitor[] | null> {
  try {
    const res = await f('/demo/api/visitors', { headers: { accept: 'application/json' } });
    if (!res.ok) return null;
    const body = (await res.json()) as { visitors?: unknown };
    if (!Array.isArray(body.visitors)) return null;
    return body.visitors.filter((v): v is DemoVisitor => !!v && typeof v.label === 'string' && typeof v.ip === 'string');
  } catch {
    return null;
  }
}

/** `href` with `svc_test_ip` set to `ip` (or removed for null), other parameters kept. */
export function withTestIp(href: string, ip: string | null): string {
  const url = new URL(href);
  if (ip) url.searchParams.set('svc_test_ip', ip);
  else url.searchParams.delete('svc_test_ip');
  return url.pathname + url.search + url.hash;
}
