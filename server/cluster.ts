/**
 * `serve --workers N`: N processes (node:cluster) share the listening socket and the state store, so
 * credits and rate limits stay exact across workers (every count and charge is a transaction in the
 * shared SQLite file). The primary does the one-time initialisation, restarts crashed workers, and
 * forwards SIGHUP (data reload) to them.
 */
import cluster from 'node:cluster';
import type { Config } from './config.ts';
import { createLogger } from './observability/logger.ts';
import { serveClusterMetrics, startMetricsServer } from './observability/metrics-route.ts';
import { exitOnSignals, initialiseState, startServer, stateLog } from './serve.ts';
import { openBackend } from './state/backend.ts';

export async function serveCluster(config: Config, workers: number): Promise<void> {
  const log = createLogger(config.SVC_LOG);
  if (cluster.isPrimary) {
    // The workers prune the audit log; the primary only seeds.
    const backend = await openBackend({ ...config, SVC_AUDIT_RETENTION_DAYS: undefined }, stateLog(log));
    try {
      await initialiseState(backend, config, log);
    } finally {
      await backend.close();
    }
    let stopping = false;
    // Metrics of every worker, summed (counters, histograms) or min/max/averaged (gauges) by prom-client.
    const aggregator = serveClusterMetrics();
    if (config.SVC_METRICS_PORT !== undefined) {
      await startMetricsServer(config.SVC_METRICS_PORT, config.SVC_METRICS_HOST, () => aggregator.clusterMetrics());
      log.info(`metrics of all workers on port ${config.SVC_METRICS_PORT} (GET /metrics)`);
    }
    for (let i = 0; i < workers; i++) cluster.fork();
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      log.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      cluster.fork();
    });
    process.on('SIGHUP', () => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGHUP');
    });
    const stop = () => {
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      // Workers drain within SVC_SHUTDOWN_TIMEOUT_MS; this is only a backstop for a stuck one.
      setTimeout(() => process.exit(0), config.SVC_SHUTDOWN_TIMEOUT_MS + 3_000).unref();
      cluster.on('exit', () => {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    log.info(`primary ${process.pid}: ${workers} workers on port ${config.PORT}`);
    return;
  }
  const running = await startServer(config, log, { initialise: false });
  exitOnSignals(() => running.close(), config.SVC_SHUTDOWN_TIMEOUT_MS, log);
}
