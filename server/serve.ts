/** Starting a server node: state store, data, (demo seed), HTTP listener, graceful shutdown. */
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { readCustomersFile } from '../data/sources/read.ts';
import { setupAdminAuth } from './admin/credentials.ts';
import { createRequestListener } from './app.ts';
import { provisionCustomer } from './customers/provision.ts';
import type { Config } from './config.ts';
import { Dataset } from './data/dataset.ts';
import { createLogger, type Logger } from './http/logger.ts';
import { collectProcessMetrics, watchDataset } from './observability/metrics.ts';
import { portOf, startMetricsServer } from './observability/metrics-route.ts';
import { openStateStore } from './state/open-store.ts';
import type { StateStore } from './state/store.ts';

export interface RunningServer {
  server: Server;
  url: string;
  port: number;
  store: StateStore;
  dataset: Dataset;
  /** The SVC_METRICS_PORT server's port, when this process serves one. */
  metricsPort?: number;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Seed demo customers and set up the admin credential; false in cluster workers (the primary did it). */
  initialise?: boolean;
}

export async function startServer(config: Config, log: Logger = createLogger(config.SVC_LOG), opts: StartOptions = {}): Promise<RunningServer> {
  const dataset = new Dataset(config.SVC_DATA, (r) =>
    r.ok ? log.info(`data reloaded from ${config.SVC_DATA}`) : log.error(`data reload failed, still serving the previous data: ${r.error.message}`),
  );
  dataset.watch();
  watchDataset(dataset);
  collectProcessMetrics();
  const onHup = () => dataset.reload();
  process.on('SIGHUP', onHup);
  const store = await openStateStore(config, (m) => log.error(m));
  if (opts.initialise !== false) await initialiseState(store, config, log);
  const { auth: adminAuth } = await setupAdminAuth(store, config.SVC_ADMIN_TOKEN);
  const server = createServer(createRequestListener({ config, store, dataset, log, adminAuth }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Keep-alive longer than common proxies' idle timeout, so a proxy never reuses a socket we just closed.
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${port}`;
  // With workers, the primary serves the metrics port (aggregated over workers: server/cluster.ts).
  const metricsServer = config.SVC_METRICS_PORT !== undefined && !cluster.isWorker ? await startMetricsServer(config.SVC_METRICS_PORT, config.HOST) : null;
  if (metricsServer) log.info(`metrics on port ${portOf(metricsServer)} (GET /metrics)`);
  log.info(`listening on ${url} (data ${config.SVC_DATA}, state ${config.SVC_STATE}${config.SVC_DEMO ? ', demo mode' : ''})`);
  return {
    server,
    url,
    port,
    store,
    dataset,
    metricsPort: metricsServer ? portOf(metricsServer) : undefined,
    async close() {
      process.off('SIGHUP', onHup);
      metricsServer?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await store.close();
      dataset.close();
    },
  };
}

/** One-time work before serving: demo seed and the admin credential (printed once when generated). */
export async function initialiseState(store: StateStore, config: Config, log: Logger): Promise<void> {
  if (config.SVC_DEMO) await seedDemo(store, config.SVC_SEED, log);
  const { generated } = await setupAdminAuth(store, config.SVC_ADMIN_TOKEN);
  if (generated) {
    // Printed once, on the first start with this state: only its hash is kept.
    process.stderr.write(`\nAdmin token for the admin API (shown once, store it now): ${generated}\n\n`);
  }
}

async function seedDemo(store: StateStore, seedFile: string, log: Logger): Promise<void> {
  if (!existsSync(seedFile)) {
    log.error(`demo mode: ${seedFile} not found, no demo customer seeded`);
    return;
  }
  for (const customer of readCustomersFile(seedFile).customers) await provisionCustomer(store, customer);
  log.info(`demo mode: seeded customers from ${seedFile}`);
}
