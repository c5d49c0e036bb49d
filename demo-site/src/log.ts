/** One line of the demo's event log (shared by the inline recorder and the app). */
export interface DemoLogEntry {
  type: 'svc:ready' | 'svc:error' | 'dataLayer.push';
  detail: unknown;
  /** Milliseconds since navigation start. */
  at: number;
}

/** A one-line summary of an entry for the log. */
export function summarise(entry: DemoLogEntry): string {
  const d = (entry.detail ?? {}) as Record<string, any>;
  if (entry.type === 'svc:ready') {
    const c = d.data?.company ?? {};
    const who = c.company_match === 'Match' ? c.name : c.company_match;
    return `${who || 'answer'}${d.cached ? ' (from cache, no request)' : ''}`;
  }
  if (entry.type === 'svc:error') return `HTTP ${d.status || 'network error'}: ${d.message ?? ''}`;
  return String(d.event ?? JSON.stringify(d));
}
