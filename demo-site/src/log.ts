import type { SvcCompany, SvcErrorDetail, SvcReadyDetail } from '../../tag/src/types.ts';

/** One line of the demo's event log (shared by the inline recorder and the app). */
export interface DemoLogEntry {
  type: 'svc:ready' | 'svc:error' | 'svc:personalized' | 'dataLayer.push';
  detail: unknown;
  /** Milliseconds since navigation start. */
  at: number;
}

/**
 * What `summarise` reads of a detail, whichever event it came from. Nothing is guaranteed: a page may
 * push anything to `dataLayer`, so every field may be missing and each use checks for it.
 */
type LogDetail = Partial<SvcReadyDetail & SvcErrorDetail> & { elements?: unknown; event?: unknown };

/** A one-line summary of an entry for the log. */
export function summarise(entry: DemoLogEntry): string {
  const d = (entry.detail ?? {}) as LogDetail;
  if (entry.type === 'svc:ready') {
    const c: Partial<SvcCompany> = d.data?.company ?? {};
    const who = c.company_match === 'Match' ? c.name : c.company_match;
    return `${who || 'answer'}${d.cached ? ' (from cache, no request)' : ''}${d.hidden ? `, hidden ${d.hidden} ms` : ''}`;
  }
  if (entry.type === 'svc:error') return d.status ? `HTTP ${d.status}: ${d.message ?? ''}` : `no answer: ${d.message ?? ''}`;
  if (entry.type === 'svc:personalized') {
    const n = Array.isArray(d.elements) ? d.elements.length : 0;
    return `${n} element${n === 1 ? '' : 's'}`;
  }
  return String(d.event ?? JSON.stringify(d));
}
