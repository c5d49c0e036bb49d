/**
 * Exposing the metrics: `GET /metrics` on the service port, guarded by the admin token (Bearer), and —
 * when `SVC_METRICS_PORT` is set — unauthenticated on that separate port (keep it off the public network).
 *
 * With `serve --workers N` every worker has its own registry; the primary aggregates them with
 * prom-client's AggregatorRegistry. A worker asked for /metrics forwards the question to the primary over
 * the cluster IPC channel, so any worker answers with the whole node's figures.
 */
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import type { ErrorBody } from '../../core/error-codes.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import { metricsDocs } from './docs.ts';
import { registry } from './metrics.ts';

const ASK = 'svc:metrics?';
const ANSWER = 'svc:metrics';
const IPC_TIMEOUT_MS = 5000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** The Prometheus text for this process, or for the whole cluster when it runs as a worker. */
export function metricsText(): Promise<string> {
  return cluster.isWorker && process.send ? askPrimary() : registry.metrics();
}

let nextId = 0;
function askPrimary(): Promise<string> {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown) => {
      const a = m as Answer;
      if (a?.type !== ANSWER || a.id !== id) return;
      done();
      if (a.text !== undefined) resolve(a.text);
      else reject(new Error(a.error ?? 'no metrics from the primary'));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('the primary did not answer with metrics'));
    }, IPC_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    process.send!({ type: ASK, id });
  });
}

/** In the cluster primary: answer workers' questions with the aggregate of every worker's registry. */
export function serveClusterMetrics(): client.AggregatorRegistry<client.RegistryContentType> {
  const aggregator = new client.AggregatorRegistry();
  cluster.on('message', (worker, m: unknown) => {
    const q = m as { type?: string; id?: number };
    if (q?.type !== ASK || typeof q.id !== 'number') return;
    const id = q.id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (e: Error) => worker.send({ type: ANSWER, id, error: e.message } satisfies Answer),
    );
  });
  return aggregator;
}

/**
 * `GET /metrics` on the service port: the admin token (`operator`: the admin API's credential and its
 * throttle of failed credentials, so /metrics is no side door for guessing it).
 */
export const metricsRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/metrics',
    auth: { kind: 'operator' },
    headers: { 'Cache-Control': 'no-store' },
    doc: metricsDocs.get,
    handler: async () => ({ status: 200, text: await metricsText(), type: registry.contentType }),
  }),
];

/** The separate metrics port: /metrics only, no authentication (bind it to a private interface). */
export async function startMetricsServer(port: number, host: string, text: () => Promise<string> = metricsText): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'error', message: 'only GET /metrics here', code: 'not_found' } satisfies ErrorBody));
      return;
    }
    text().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (e: Error) =>
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'error', message: `metrics unavailable: ${e.message}`, code: 'unavailable' } satisfies ErrorBody)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
