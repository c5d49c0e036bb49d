/**
 * Server configuration from the environment (flags of `serve` mirror these). One zod schema is the
 * validation, the type and the list of settings; docs/configuration.md documents the same names (server/config-docs.test.ts checks).
 */
import { z } from 'zod';

const flag = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

export const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().default('0.0.0.0'),
    SVC_DATA: z.string().default('var/data'),
    SVC_STATE: z.string().default('var/svc.db'),
    /** Shared state on Redis/Valkey (`redis://host:6379`) for many nodes; unset = SQLite (SVC_STATE). */
    SVC_REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'SVC_REDIS_URL must start with redis:// or rediss://')
      .optional(),
    /** SVC_REDIS_URL names the seed nodes of a Redis Cluster (`redis://h1:p1,h2:p2`): cluster client, sharded pub/sub. */
    SVC_REDIS_CLUSTER: flag,
    /**
     * Replicas each batch of charges waits for (`WAIT n`) before its answers go out: 0 = asynchronous
     * replication (a failover may lose the last charges), 1 = a charge a client saw survives a failover.
     */
    SVC_REDIS_WAIT: z.coerce.number().int().min(0).max(5).default(0),
    /** Local folder of the journal of charges made while Redis is unreachable (replayed when it is back). */
    SVC_JOURNAL_DIR: z.string().default('var/journal'),
    /** Identification credits per customer a node may charge while Redis is unreachable. */
    SVC_OUTAGE_ALLOWANCE: z.coerce.number().int().min(0).default(100),
    /**
     * How long a Redis command may go unanswered before the node treats Redis as down (outage paths: local
     * allowance, journal, 503). A stopped or partitioned Redis never closes the connection.
     */
    SVC_REDIS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1_500),
    /** Express "trust proxy" value: unset = trust nothing (the socket address is the visitor). */
    SVC_TRUST_PROXY: z.string().optional(),
    /**
     * The address people reach this deployment at (`https://svc.example.com`): invitation links, SSO
     * callbacks and schema `$id`s are built on it, and an https one makes session cookies `Secure`
     * (`__Host-`). Unset: the request's Host when it is a loopback name, HOST:PORT or in SVC_ALLOWED_HOSTS
     * (any Host in demo mode), else http://HOST:PORT (http://localhost:PORT when HOST is 0.0.0.0).
     */
    SVC_PUBLIC_URL: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'SVC_PUBLIC_URL must be an http(s) URL')
      .transform((u) => u.replace(/\/+$/, ''))
      .optional(),
    /**
     * Without SVC_PUBLIC_URL: the Host headers links may be built on, comma-separated (`svc.example.com`
     * any port, `svc.example.com:8443` that port only). A Host header is the client's to choose: an
     * invitation link built on an attacker's would hand them its token.
     */
    SVC_ALLOWED_HOSTS: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter((h) => h !== ''),
      ),
    /** Invitation and password-reset links are also mailed when set: `smtp://user:pass@host:587`, `smtps://…`. */
    SVC_SMTP_URL: z.string().url().optional(),
    /** The sender of those mails. */
    SVC_SMTP_FROM: z.string().default('svc <no-reply@localhost>'),
    /** Demo mode: seeds the demo customer and honours `test_ip` from the demo page. Never on outside `npm start`. */
    SVC_DEMO: flag,
    /** Sources the demo customer is seeded from. */
    SVC_SEED: z.string().default('data/sample/customers.json'),
    /** Where built static assets (tag bundle, demo site, console) live. */
    SVC_DIST: z.string().default('dist'),
    /** Admin API / console credential; when unset one is generated at first start and printed once. */
    SVC_ADMIN_TOKEN: z
      .string()
      .min(
        20,
        'SVC_ADMIN_TOKEN must be at least 20 characters (a short admin token can be guessed): use a long random value, or unset it to have one generated',
      )
      .optional(),
    SVC_LOG: z.enum(['silent', 'error', 'info']).default('info'),
    /** How often each node looks for due webhook deliveries. */
    SVC_WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(3_600_000).default(1000),
    /** CRM sync: accounts whose svc data changed reach the CRM within this many minutes (each connection's incremental run). */
    SVC_CRM_SYNC_MINUTES: z.coerce.number().positive().max(1440).default(15),
    /**
     * CRM sync: how long a node holds a connection's sync lease without renewing it (it renews before each
     * chunk of 500 accounts); a node that dies mid-run is taken over by another this long after.
     */
    SVC_CRM_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),
    /** How long a webhook receiver may take to answer before the attempt counts as failed. */
    SVC_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /**
     * Webhook receivers may be on loopback, private or internal addresses. Off: only public addresses are
     * delivered to (a customer's URL must not reach our own network); on for tests and private deployments.
     */
    SVC_WEBHOOK_ALLOW_PRIVATE: flag,
    /** Raw page views as NDJSON: `<dir>/<customer>/<YYYY-MM-DD>.ndjson`. */
    SVC_EVENTS_DIR: z.string().default('var/events'),
    /** Days of NDJSON page-view files kept; older day files are deleted. */
    SVC_EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Days of audit events kept per customer (users' and the operator's changes, sign-ins); older ones are deleted. */
    SVC_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(400),
    /** MB of NDJSON page views per customer and day; lines past it are dropped (counted). */
    SVC_EVENTS_MAX_DAY_MB: z.coerce.number().int().min(1).max(1_000_000).default(256),
    /** MB of NDJSON page-view files on this node's disk; past it the oldest days are deleted. */
    SVC_EVENTS_MAX_TOTAL_MB: z.coerce.number().int().min(1).max(100_000_000).default(20_480),
    /** The console's enrichment jobs on this node: uploads, results, progress (`<dir>/jobs.db`, `<dir>/<customer>/<job>/`). */
    SVC_JOBS_DIR: z.string().default('var/jobs'),
    /** Largest console upload to enrich, decoded (server/enrichment/jobs/limits.ts: every refusal and its status). */
    SVC_JOBS_MAX_UPLOAD_MB: z.coerce.number().int().min(1).max(100_000).default(256),
    /** A gzip upload may decode to at most this many times its compressed size (plus 1 MB): a gzip bomb stops there. */
    SVC_JOBS_MAX_GZIP_RATIO: z.coerce.number().int().min(2).max(10_000).default(50),
    /** A customer's enrichment jobs queued or running on one node at once. */
    SVC_JOBS_MAX_QUEUED: z.coerce.number().int().min(1).max(1_000).default(3),
    /** MB a customer's enrichment jobs (uploads and results, kept ones included) may hold on one node. */
    SVC_JOBS_MAX_CUSTOMER_MB: z.coerce.number().int().min(1).max(100_000_000).default(2_048),
    /** MB all enrichment jobs may hold on this node's disk. */
    SVC_JOBS_MAX_TOTAL_MB: z.coerce.number().int().min(1).max(100_000_000).default(20_480),
    /** MB the enrichment jobs leave free on SVC_JOBS_DIR's disk (the state file, the logs and the journal share it). */
    SVC_JOBS_MIN_FREE_MB: z.coerce.number().int().min(0).max(100_000_000).default(2_048),
    /** Days a finished enrichment job and its result are kept; then deleted. */
    SVC_JOBS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
    /**
     * On SIGTERM/SIGINT: how long in-flight requests may take to finish before the remaining connections
     * are closed and the process exits anyway (milliseconds).
     */
    SVC_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    /** A separate port serving only GET /metrics, unauthenticated (with workers: served by the primary, aggregated). */
    SVC_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** Where the unauthenticated metrics port listens: loopback unless the operator opens it on purpose. */
    SVC_METRICS_HOST: z.string().default('127.0.0.1'),
    /** A GeoIP2/GeoLite2 City or Country database: the `geoIP_*` fields come from it (else from the network's own geo). */
    SVC_GEOIP_DB: z.string().optional(),
  })
  .superRefine((c, ctx) => {
    // Several addresses are a cluster's seed nodes: read as one Redis they would fail at connect, unclearly.
    if (c.SVC_REDIS_URL?.includes(',') && !c.SVC_REDIS_CLUSTER)
      ctx.addIssue({ code: 'custom', path: ['SVC_REDIS_URL'], message: 'several addresses name the seed nodes of a Redis Cluster: set SVC_REDIS_CLUSTER=1' });
  });
export type Config = z.infer<typeof ConfigSchema>;

/** A setting the operator has to fix: the CLI prints the message alone (no stack) and refuses to start. */
export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof Config, string>> = {}): Config {
  const parsed = ConfigSchema.safeParse({ ...env, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`configuration: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

/**
 * The URL a server listening on HOST and PORT is reached at on this machine: every address (0.0.0.0, ::)
 * reads as localhost; an IPv6 literal takes brackets in a URL (RFC 3986).
 */
export function listeningUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The address of this server for links printed by the CLI: SVC_PUBLIC_URL, else the local listening address. */
export function serverBaseUrl(config: Pick<Config, 'SVC_PUBLIC_URL' | 'HOST' | 'PORT'>): string {
  return config.SVC_PUBLIC_URL ?? listeningUrl(config.HOST, config.PORT);
}

/** Express's trust-proxy setting from SVC_TRUST_PROXY: `true`, a hop count, or a list of addresses/names. */
export function trustProxySetting(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
