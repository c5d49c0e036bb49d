/** Starting a server node: state store, data, (demo seed), HTTP listener, metrics port, graceful shutdown with a deadline. */
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alertDispatch } from './alerts/dispatch.ts';
import { createRequestListener } from './app.ts';
import { setupAdminAuth } from './auth/operator-credential.ts';
import { type Config, listeningUrl, serverBaseUrl } from './config.ts';
import type { ClientTuning } from './crm/clients.ts';
import { CrmScheduler } from './crm/scheduler.ts';
import { CrmSync } from './crm/service.ts';
import { Dataset } from './data/dataset.ts';
import { seedDemo } from './demo/seed.ts';
import { createDigestMailer } from './digests/mail.ts';
import { DigestScheduler } from './digests/scheduler.ts';
import { Digests } from './digests/service.ts';
import { jobLimits } from './enrichment/jobs/limits.ts';
import { EnrichJobs } from './enrichment/jobs/runner.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import { collectProcessMetrics, watchDataset } from './observability/metrics.ts';
import { portOf, startMetricsServer } from './observability/metrics-route.ts';
import { type Backend, openBackend } from './state/backend.ts';
import type { WebhookStore } from './state/outbox/store.ts';
import type { StateStore } from './state/store.ts';
import type { UserStore } from './state/users/store.ts';
import { openVisitRecorder } from './visits/open-recorder.ts';
import type { PageViewRecorder } from './visits/recorder.ts';
import { enrichedFacts } from './webhooks/enrich.ts';
import { WebhookService } from './webhooks/service.ts';

export interface RunningServer {
  server: Server;
  url: string;
  port: number;
  store: StateStore;
  dataset: Dataset;
  webhooks: WebhookService;
  webhookStore: WebhookStore;
  /** The CRM sync and its schedule on this node. */
  crm: CrmSync;
  crmScheduler: CrmScheduler;
  /** Page views: register listeners with `recorder.onPageView` (webhooks). */
  recorder: PageViewRecorder;
  /** Users, sessions, SSO providers and the audit log. */
  users: UserStore;
  /** The console's enrichment jobs of this node. */
  enrichJobs: EnrichJobs;
  /** Email digests and their schedule on this node. */
  digests: Digests;
  digestScheduler: DigestScheduler;
  /** The SVC_METRICS_PORT server's port, when this process serves one. */
  metricsPort?: number;
  /**
   * Stops accepting, lets in-flight requests finish (their keep-alive connections close after the
   * answer; idle ones at once), and after `deadlineMs` (default SVC_SHUTDOWN_TIMEOUT_MS) closes whatever
   * connections remain; then closes the state store and the data.
   */
  close(deadlineMs?: number): Promise<void>;
}

export interface StartOptions {
  /** Seed demo customers and set up the admin credential; false in cluster workers (the primary did it). */
  initialise?: boolean;
  /** The clock of time-driven work (webhook retries); tests pass a fake one. */
  now?: () => number;
  /** The CRM clients' rate and time budgets and the schedule's tick (tests and benchmarks; defaults are the providers'). */
  crm?: ClientTuning & { tickMs?: number };
  /** How often the digest schedule is looked at (DIGEST_TICK_MS); tests call `digestScheduler.tick()` themselves. */
  digestTickMs?: number;
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
  const backend = await openBackend(config, stateLog(log));
  const { state: store, users, outbox: webhookStore } = backend;
  if (opts.initialise !== false) await initialiseState(backend, config, log);
  const { auth: adminAuth } = await setupAdminAuth(store, config.SVC_ADMIN_TOKEN);
  const recorder = openVisitRecorder(config, log, backend.visits, backend.engagement);
  const enrichDeps = { catalog: () => dataset.current.catalog, recorder };
  const webhooks = new WebhookService({
    store: webhookStore,
    log,
    timeoutMs: config.SVC_WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.SVC_WEBHOOK_ALLOW_PRIVATE,
    // Slack messages link to the account page in the console.
    publicBaseUrl: serverBaseUrl(config),
    now: opts.now,
    // What enriched payloads (v2) carry: the account's company, segments, scores and visit.
    async enrich(view) {
      const customer = await store.getCustomer(view.customer_id);
      return customer ? enrichedFacts(enrichDeps, customer, view) : undefined;
    },
    // Alerts are outbox endpoints: their facts (owner, stages, lists), mail and mail marks (server/alerts/).
    alerts: alertDispatch({
      alerts: backend.alerts,
      store,
      users,
      visits: backend.visits,
      catalog: () => dataset.current.catalog,
      crm: () => backend.crm,
      config,
      reportError: (e) => recorder.reportError(e),
    }),
  });
  webhooks.start(config.SVC_WEBHOOK_POLL_MS);
  // Every recorded page view may raise webhook events (account.visited, account.hot, segment.entered).
  recorder.onPageView(async (view) => {
    await webhooks.onPageView({ ...view, company: companyNames(dataset, view.company_id) });
  });
  recorder.onTagInstalled(async (sighting) => {
    const tag = await store.getTag(sighting.tag_id);
    if (tag) await webhooks.onTagInstalled({ customer_id: tag.customer_id, ...sighting });
  });
  const crm = new CrmSync({
    crm: backend.crm,
    customers: store,
    dataset,
    recorder,
    now: opts.now ?? Date.now,
    leaseMs: config.SVC_CRM_LEASE_SECONDS * 1000,
    log,
    tuning: opts.crm,
  });
  const crmScheduler = new CrmScheduler(crm.deps, { syncMinutes: config.SVC_CRM_SYNC_MINUTES, tickMs: opts.crm?.tickMs });
  crmScheduler.start();
  // Every node looks for due digests; a claim in the state store makes one of them send each.
  const digests = new Digests({
    store: backend.digests,
    users,
    customers: store,
    dataset,
    visits: backend.visits,
    crm: backend.crm,
    engagement: backend.engagement,
    owners: backend.alerts,
    mailer: createDigestMailer(config),
    baseUrl: serverBaseUrl(config),
    now: opts.now ?? Date.now,
    log,
  });
  const digestScheduler = new DigestScheduler(digests, opts.digestTickMs);
  digestScheduler.start();
  // Enrichment jobs of the console: those an earlier process left (a stop, a crash) resume now.
  const enrichJobs = new EnrichJobs({
    dir: config.SVC_JOBS_DIR,
    store,
    catalog: () => dataset.current.catalog,
    // The segments of a file row read the account's facts from the stores the API's answers read them from.
    accounts: { visits: backend.visits, engagement: backend.engagement, crm: backend.crm, onError: (e) => recorder.reportError(e) },
    log,
    limits: jobLimits(config),
  });
  enrichJobs.start();
  const server = createServer(
    createRequestListener({
      config,
      store,
      dataset,
      log,
      adminAuth,
      recorder,
      users,
      webhooks: { webhookStore, webhooks },
      enrichJobs,
      crm,
      digests,
      alertState: backend.alerts,
    }),
  );
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
  const url = listeningUrl(config.HOST, port);
  // With workers, the primary serves the metrics port (aggregated over workers: server/cluster.ts).
  const metricsServer =
    config.SVC_METRICS_PORT !== undefined && !cluster.isWorker ? await startMetricsServer(config.SVC_METRICS_PORT, config.SVC_METRICS_HOST) : null;
  if (metricsServer) log.info(`metrics on port ${portOf(metricsServer)} (GET /metrics)`);
  log.info(
    `listening on ${url} (data ${config.SVC_DATA}, state ${config.SVC_REDIS_URL ? 'on Redis' : config.SVC_STATE}${config.SVC_DEMO ? ', demo mode' : ''})`,
  );
  return {
    server,
    url,
    port,
    store,
    dataset,
    webhooks,
    webhookStore,
    crm,
    crmScheduler,
    recorder,
    users,
    enrichJobs,
    digests,
    digestScheduler,
    metricsPort: metricsServer ? portOf(metricsServer) : undefined,
    async close(deadlineMs = config.SVC_SHUTDOWN_TIMEOUT_MS) {
      process.off('SIGHUP', onHup);
      metricsServer?.close();
      await drain(server, deadlineMs, log);
      await enrichJobs.stop();
      await crmScheduler.stop();
      await digestScheduler.stop();
      await crm.stop();
      await recorder.close();
      await webhooks.stop();
      await backend.close();
      dataset.close();
    },
  };
}

/** How often connections that fell idle during a drain are closed (a keep-alive client may sit idle on one). */
const IDLE_SWEEP_MS = 100;

async function drain(server: Server, deadlineMs: number, log: Logger): Promise<void> {
  // Answers given while draining end their connection, so a keep-alive client cannot hold one open.
  server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  const deadline = setTimeout(() => {
    log.error(`shutdown: requests still running after ${deadlineMs} ms, closing their connections`);
    server.closeAllConnections();
  }, deadlineMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}

/**
 * SIGTERM and SIGINT stop the node gracefully: `close` drains within its deadline, then the process exits.
 * Later signals are ignored (Ctrl-C reaches cluster workers both directly and through the primary); a
 * close that hangs past the deadline (a stuck store) exits anyway.
 */
export function exitOnSignals(close: () => Promise<void>, deadlineMs: number, log: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: shutting down (deadline ${deadlineMs} ms)`);
    setTimeout(() => process.exit(1), deadlineMs + 2_000).unref();
    close().then(
      () => process.exit(0),
      (e) => {
        log.error(`shutdown: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** One-time work before serving: demo seed and the admin credential (printed once when generated). */
export async function initialiseState({ state, users }: Pick<Backend, 'state' | 'users'>, config: Config, log: Logger): Promise<void> {
  if (config.SVC_DEMO) await seedDemo(state, (event) => users.appendAudit(event), config.SVC_SEED, log);
  const { generated } = await setupAdminAuth(state, config.SVC_ADMIN_TOKEN);
  if (generated) {
    // Printed once, on the first start with this state: only its hash is kept.
    process.stderr.write(`\nAdmin token for the admin API (shown once, store it now): ${generated}\n\n`);
  }
}

/** Name and domain of a visiting account for webhook payloads (the catalog keeps them; page views carry only the id). */
function companyNames(dataset: Dataset, companyId: string | null): { name: string | null; domain: string | null } | null {
  if (!companyId) return null;
  try {
    const row = dataset.current.catalog.company(companyId);
    return row ? { name: row.name || null, domain: row.domain || null } : null;
  } catch {
    return null; // a snapshot swapped out mid-call: the event still goes out, with the id only
  }
}

/** The state stores' operational lines (state file replaced, Redis outages) in the server's log. */
export function stateLog(log: Logger): (message: string, level?: 'info' | 'error') => void {
  return (m, level) => (level === 'info' ? log.info(m) : log.error(m));
}
