/**
 * What bench/webhooks.ts writes before a node starts: the burst's visitor addresses, the 19 endpoints and
 * the backlog, planned by the real planner (WebhookService.onPageView) from page views of made-up accounts.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CATALOG_FILE } from '../data/catalog/schema.ts';
import { createLogger } from '../server/observability/logger.ts';
import type { OutboxItem, WebhookStore } from '../server/state/outbox/store.ts';
import type { PageViewForWebhooks } from '../server/webhooks/events.ts';
import { WebhookService } from '../server/webhooks/service.ts';
import { BENCH_ORIGIN, type BenchData } from './bench-data.ts';

export const ENDPOINTS = 19;
export const PATHS = ['/', '/pricing', '/pricing/b'];

/** Distinct companies' visitor addresses (IPv4, verified samples of the built data). */
export function companyIps(data: BenchData, count: number): string[] {
  const db = new Database(join(data.data, CATALOG_FILE), { readonly: true });
  const rows = db.prepare("SELECT ip, company_id FROM network_samples WHERE kind = 'company' AND ip NOT LIKE '%:%' ORDER BY ip").all() as {
    ip: string;
    company_id: string;
  }[];
  db.close();
  const byCompany = new Map<string, string>();
  for (const r of rows) if (!byCompany.has(r.company_id)) byCompany.set(r.company_id, r.ip);
  const ips = [...byCompany.values()].slice(0, count);
  if (ips.length < count) throw new Error(`the bench data has ${ips.length} companies with a sample address, the burst needs ${count}`);
  return ips;
}

/** A page view of a made-up account for the backlog (its events never collide with the burst's). */
function backlogView(customer: string, company: number, path: string, first: boolean): PageViewForWebhooks {
  const at = new Date();
  return {
    customer_id: customer,
    tag_id: 'bench-tag-0',
    at: at.toISOString(),
    day: at.toISOString().slice(0, 10),
    company_id: `backlog-${company}`,
    company: { name: `Backlog Company ${company}`, domain: `backlog-${company}.example` },
    path,
    referrer_host: 'news.example',
    session_id: `backlog-session-${company}`,
    origin: BENCH_ORIGIN,
    first_of_day_for_account: first,
    segment_ids: [],
    hot_account: false,
    excluded: false,
  };
}

/** The bodies and secrets of the last backlog, for the floor (the same bytes the node sends). */
let lastBacklog: Array<{ url: string; secret: string; body: string; eventId: string }> = [];

/** The endpoints and the backlog, written with the outbox's own code before the node starts. */
export async function fillOutbox(store: WebhookStore, receiverUrl: string, customer: string, deliveries: number): Promise<void> {
  const secrets = new Map<string, { url: string; secret: string }>();
  for (let i = 0; i < ENDPOINTS; i++) {
    const url = `${receiverUrl}/hooks/${i}`;
    const secret = `whsec_bench_${i}_${'0123456789abcdef'.repeat(3)}`;
    const e = await store.createEndpoint({
      customer_id: customer,
      url,
      events: ['account.visited', 'account.hot', 'segment.entered', 'tag.installed'],
      hot_paths: ['/pricing*'],
      description: `bench ${i}`,
      secret,
    });
    secrets.set(e.id, { url, secret });
  }
  lastBacklog = [];
  // The real planner (WebhookService.onPageView) over a store that also keeps what is enqueued.
  const recording = new Proxy(store, {
    get(target, prop) {
      if (prop === 'enqueue')
        return (items: OutboxItem[], nowMs: number) => {
          for (const item of items) lastBacklog.push({ ...secrets.get(item.webhook_id)!, body: JSON.stringify(item.event), eventId: item.event.id });
          return target.enqueue(items, nowMs);
        };
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const planner = new WebhookService({ store: recording, log: createLogger('silent'), allowPrivate: true });
  const companies = Math.ceil(deliveries / (ENDPOINTS * PATHS.length));
  for (let c = 0; c < companies; c += 20) {
    const views = [];
    for (let k = c; k < Math.min(companies, c + 20); k++) views.push(...PATHS.map((path, i) => backlogView(customer, k, path, i === 0)));
    for (const v of views) await planner.onPageView(v);
  }
}

/** What the last fillOutbox enqueued, in order. */
export const backlog = () => lastBacklog;
