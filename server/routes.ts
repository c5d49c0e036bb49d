/**
 * The route table: every route of the service, defined once (server/http/route-def.ts). The router
 * (server/http/router.ts) registers it, answers 405 + Allow and HEAD from it; the OpenAPI document
 * (server/openapi/document.ts) is generated from it. Each module owns its routes' definitions.
 */
import { accountRoutes } from './accounts/routes.ts';
import { adminRoutes } from './admin/routes.ts';
import { alertRoutes } from './alerts/routes.ts';
import { shellRoutes } from './app-shell.ts';
import { authRoutes } from './auth/routes.ts';
import { ssoRoutes } from './auth/sso-routes.ts';
import { committeeRoutes } from './committee/routes.ts';
import { usageRoutes } from './credits/usage-route.ts';
import { crmRoutes } from './crm/routes.ts';
import { demoRoutes } from './demo/visitors.ts';
import { digestRoutes } from './digests/routes.ts';
import { batchEnrichmentRoutes } from './enrichment/batch-route.ts';
import { enrichmentJobRoutes } from './enrichment/jobs/routes.ts';
import { enrichmentRoutes } from './enrichment/route.ts';
import { eventSchemaRoutes } from './events/routes.ts';
import { homeRoutes } from './home/routes.ts';
import type { RouteDef } from './http/route-def.ts';
import { identificationRoutes } from './identification/route.ts';
import { listAdminRoutes } from './lists/routes.ts';
import { lookalikeRoutes } from './lookalikes/routes.ts';
import { healthRoutes } from './observability/health.ts';
import { metricsRoutes } from './observability/metrics-route.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { peopleRoutes } from './people/route.ts';
import { audienceRoutes } from './segments/audience-routes.ts';
import { segmentAdminRoutes, segmentApiRoutes } from './segments/routes.ts';
import { topicRoutes } from './topics/routes.ts';
import { userRoutes } from './users/routes.ts';
import { visitsAdminRoutes } from './visits/admin-routes.ts';
import { pageViewRoutes } from './visits/events-route.ts';
import { webhookAdminRoutes } from './webhooks/routes.ts';

export const ROUTES: readonly RouteDef[] = [
  ...identificationRoutes,
  ...enrichmentRoutes,
  ...batchEnrichmentRoutes,
  ...peopleRoutes,
  ...segmentApiRoutes,
  ...usageRoutes,
  ...pageViewRoutes,
  ...demoRoutes,
  ...adminRoutes,
  ...visitsAdminRoutes,
  ...homeRoutes,
  ...accountRoutes,
  ...committeeRoutes,
  ...webhookAdminRoutes,
  ...alertRoutes,
  ...crmRoutes,
  ...segmentAdminRoutes,
  ...lookalikeRoutes,
  ...audienceRoutes,
  ...listAdminRoutes,
  ...topicRoutes,
  ...enrichmentJobRoutes,
  ...onboardingRoutes,
  ...authRoutes,
  ...ssoRoutes,
  ...userRoutes,
  ...digestRoutes,
  ...eventSchemaRoutes,
  ...healthRoutes,
  ...metricsRoutes,
  ...shellRoutes,
];
