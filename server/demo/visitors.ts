/**
 * Demo mode's visitor switcher: sample addresses, verified against the built index by `data build`,
 * chosen so a person can see the demo page as each kind of visitor.
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { Catalog } from '../data/catalog.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import { listMembers, NO_LISTS, segmentMatches } from '../segments/evaluate.ts';
import { demoVisitorsDocs } from './docs.ts';

export interface DemoVisitor {
  label: string;
  ip: string;
  kind: string;
  company?: string;
}

export const DEMO_CUSTOMER_ID = 'demo';

export function pickVisitors(catalog: Catalog, customer: CustomerRecord | null): DemoVisitor[] {
  const samples = catalog.samples();
  const visitors: DemoVisitor[] = [];
  const used = new Set<string>();
  const take = (label: string, pred: (s: (typeof samples)[number], company: ReturnType<Catalog['company']>) => boolean) => {
    for (const s of samples) {
      if (used.has(s.ip)) continue;
      const company = s.company_id ? catalog.company(s.company_id) : null;
      if (pred(s, company)) {
        used.add(s.ip);
        visitors.push({ label: company ? `${label}: ${company.name}` : label, ip: s.ip, kind: s.kind, ...(company ? { company: company.name } : {}) });
        return;
      }
    }
  };
  const excluded = new Set(customer?.excluded_accounts ?? []);
  const hot = new Set(customer?.hot_accounts.map((h) => h.company_id) ?? []);
  const firstSegment = customer?.segments[0];
  const lists = customer ? listMembers(customer) : NO_LISTS;
  const plain = (id: string) => !excluded.has(id) && !hot.has(id);
  if (firstSegment) {
    take(
      `In segment "${firstSegment.name}"`,
      (s, c) => s.kind === 'company' && c !== null && plain(c.company_id) && segmentMatches(firstSegment.match, c, lists),
    );
  }
  take(
    'Company outside the segments',
    (s, c) => s.kind === 'company' && c !== null && plain(c.company_id) && !(customer?.segments ?? []).some((seg) => segmentMatches(seg.match, c, lists)),
  );
  take('Hot account', (s, c) => s.kind === 'company' && c !== null && hot.has(c.company_id));
  take('Excluded account', (s, c) => s.kind === 'company' && c !== null && excluded.has(c.company_id));
  take('Internet service provider', (s) => s.kind === 'isp');
  take('Hosting network', (s) => s.kind === 'hosting');
  take('Bot network', (s) => s.kind === 'bot');
  take('Unknown address', (s) => s.kind === 'none');
  return visitors;
}

/** Demo mode only (SVC_DEMO): the demo page's visitor switcher. */
export const demoRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/demo/api/visitors',
    auth: { kind: 'public' },
    enabled: (s) => s.config.SVC_DEMO,
    doc: demoVisitorsDocs.get,
    async handler(ctx) {
      const customer = await ctx.services.store.getCustomer(DEMO_CUSTOMER_ID);
      return { status: 200, body: { visitors: pickVisitors(ctx.services.dataset.current.catalog, customer) } };
    },
  }),
];
