/**
 * What route handlers run on: the app's dependencies plus what the app builds from them once (the
 * metering steps, the GeoIP reader, the compiled trust-proxy rule). One object, given to every route
 * of the table at request time, so the table itself is static (the OpenAPI document reads it without a server).
 */
import type { AdminAuth } from './auth/operator-credential.ts';
import type { Config } from './config.ts';
import type { CrmSync } from './crm/service.ts';
import type { Dataset } from './data/dataset.ts';
import type { Digests } from './digests/service.ts';
import type { EnrichJobs } from './enrichment/jobs/runner.ts';
import type { GeoIp } from './geoip/geoip.ts';
import type { MeteringSteps } from './http/metering-steps.ts';
import type { TrustProxy } from './http/request-id.ts';
import type { Logger } from './observability/logger.ts';
import type { AlertStateStore } from './state/alerts/store.ts';
import type { WebhookStore } from './state/outbox/store.ts';
import type { StateStore } from './state/store.ts';
import type { UserStore } from './state/users/store.ts';
import type { Mailer } from './users/mailer.ts';
import type { PageViewRecorder } from './visits/recorder.ts';
import type { WebhookService } from './webhooks/service.ts';

export interface AppDeps {
  config: Config;
  store: StateStore;
  dataset: Dataset;
  log: Logger;
  adminAuth: AdminAuth;
  /** Signed webhooks: the outbox and its dispatcher (absent in tests that build the app without them). */
  webhooks?: { webhookStore: WebhookStore; webhooks: WebhookService };
  /** Page views and tag sightings (server/visits/). */
  recorder: PageViewRecorder;
  /** Users, invitations, sessions, SSO providers and the audit log, on the state store's connection. */
  users: UserStore;
  /** The CRM sync (HubSpot, Salesforce): its routes exist only when it does. */
  crm?: CrmSync;
  /** Alerts' owners lists, territory rules and marks (server/alerts/): its routes exist only with it and the outbox. */
  alertState?: AlertStateStore;
  /** The console's enrichment jobs of this node (absent in tests that build the app without them). */
  enrichJobs?: EnrichJobs;
  /** Email digests: settings, previews, the unsubscribe link (absent in tests that build the app without them). */
  digests?: Digests;
}

export interface Services extends AppDeps {
  /** The pipeline's rate-limit and credit steps on the state store. */
  pipeline: MeteringSteps;
  /** SVC_GEOIP_DB, when configured: the geoIP_* fields come from it. */
  geoip: GeoIp | null;
  /** SVC_TRUST_PROXY compiled (which peers may name the client address and the request id). */
  trustProxy: TrustProxy;
  /** Invitation and reset links by mail, when SVC_SMTP_URL is set. */
  mailer: Mailer | null;
}
