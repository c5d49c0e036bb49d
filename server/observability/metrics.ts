/**
 * Prometheus metrics (prom-client, its default registry: one per process; `serve --workers N` aggregates
 * the workers' registries in the primary with prom-client's AggregatorRegistry, see ./metrics-route.ts).
 * Counters are module-level so the hooks in the pipeline stay one-liners.
 */
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import client from 'prom-client';
import { BUILD_MANIFEST } from '../../data/catalog/schema.ts';
import type { Dataset } from '../data/dataset.ts';

export const registry = client.register;

let defaultsOn = false;
/** Process metrics: CPU, memory, GC and event-loop lag (`nodejs_eventloop_lag_*`). */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  client.collectDefaultMetrics({ register: registry });
  // prom-client answers the primary's aggregation requests only once an AggregatorRegistry exists in the
  // worker too (its constructor installs the worker's IPC listener).
  if (cluster.isWorker) new client.AggregatorRegistry();
}

export const httpRequests = new client.Counter({
  name: 'svc_http_requests_total',
  help: 'HTTP requests answered, by route pattern, method and status',
  labelNames: ['route', 'method', 'status'] as const,
});

export const httpDuration = new client.Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'Time from the request reaching the server to the response being handed to the socket',
  labelNames: ['route', 'method'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

export const creditsCharged = new client.Counter({
  name: 'svc_credits_charged_total',
  help: 'Credits charged, by credit pool and API',
  labelNames: ['pool', 'api'] as const,
});

export const rateLimitRefusals = new client.Counter({
  name: 'svc_rate_limit_refusals_total',
  help: 'Requests refused with 429 by the rate limiter, by route pattern',
  labelNames: ['route'] as const,
});

export const stateStoreErrors = new client.Counter({
  name: 'svc_state_store_errors_total',
  help: 'State store operations that failed (the request got 503, or a readiness probe failed)',
  labelNames: ['operation'] as const,
});

export const pageViewLinesDropped = new client.Counter({
  name: 'svc_page_view_lines_dropped_total',
  help: 'Page views not written to the NDJSON files, by reason (daily_cap, queue_full, stuck_file, invalid_customer); the visit store still counts them',
  labelNames: ['reason'] as const,
});

export const webhookDeliveriesDropped = new client.Counter({
  name: 'svc_webhook_deliveries_dropped_total',
  help: 'Webhook deliveries not enqueued, by reason (endpoint_backlog: the endpoint already had its cap of pending deliveries)',
  labelNames: ['reason'] as const,
});

export const alertOverflow = new client.Counter({
  name: 'svc_alert_overflow_total',
  help: 'Alerts held back by a destination’s rate, by destination (slack, teams: in a digest message; email: a recipient already mailed about the account that day)',
  labelNames: ['destination'] as const,
});

export const alertOwnerFallbacks = new client.Counter({
  name: 'svc_alert_owner_fallbacks_total',
  help: 'Alerts routed to the owner that went to the fallback instead, by reason (no_owner, not_a_user)',
  labelNames: ['reason'] as const,
});

export const webhookOldestDue = new client.Gauge({
  name: 'svc_webhook_oldest_due_seconds',
  help: 'Age of the oldest webhook delivery that is due and not leased (0: none waits); stays near 0 while the dispatchers keep up',
  // Every node reads the same shared outbox: the workers' figures are one figure, not a sum.
  aggregator: 'max',
});

interface Manifest {
  built_at?: string;
}

/** The data snapshot gauges read the served dataset when scraped (the last one started in this process). */
let dataset: Dataset | null = null;
let manifestFor: { loadedAt: Date; builtAt: number } | null = null;

export function watchDataset(d: Dataset): void {
  dataset = d;
}

function builtAtSeconds(d: Dataset): number {
  const snap = d.current;
  if (manifestFor?.loadedAt !== snap.loadedAt) {
    let builtAt = NaN;
    try {
      const m = JSON.parse(readFileSync(join(d.dir, BUILD_MANIFEST), 'utf8')) as Manifest;
      if (m.built_at) builtAt = Date.parse(m.built_at) / 1000;
    } catch {
      // No manifest (hand-assembled data folder): the version is unknown, the gauge says NaN.
    }
    manifestFor = { loadedAt: snap.loadedAt, builtAt };
  }
  return manifestFor.builtAt;
}

new client.Gauge({
  name: 'svc_data_built_timestamp_seconds',
  help: 'Version of the served data snapshot: when `data build` produced it (Unix time)',
  aggregator: 'min',
  collect() {
    if (dataset) this.set(builtAtSeconds(dataset));
  },
});

new client.Gauge({
  name: 'svc_data_age_seconds',
  help: 'Age of the served data snapshot (now minus its build time)',
  aggregator: 'max',
  collect() {
    if (dataset) this.set(Date.now() / 1000 - builtAtSeconds(dataset));
  },
});

new client.Gauge({
  name: 'svc_data_loaded_timestamp_seconds',
  help: 'When this process loaded the served data snapshot (Unix time)',
  aggregator: 'min',
  collect() {
    if (dataset) this.set(dataset.current.loadedAt.getTime() / 1000);
  },
});
