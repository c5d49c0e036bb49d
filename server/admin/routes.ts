/**
 * Admin REST API under /admin/api (the console and operators use it): customers, tokens, tags, credits.
 *
 * Authentication: `Authorization: Bearer <admin token>`. CSRF: browsers never attach this header on their
 * own (no cookies are used), and state-changing requests must be JSON (or carry no body) and, when they
 * carry an Origin, come from this server's own origin — so a foreign page can neither forge nor replay a request.
 */
import express, { type Request, type RequestHandler, type Router } from 'express';
import { CustomerPatch, CustomerSeed } from '../../core/customer-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { withAdvice } from '../auth/rotation.ts';
import { creditReport } from '../credits/report.ts';
import { createCustomer, type Provisioned, updateCustomer } from '../customers/provision.ts';
import type { Dataset } from '../data/dataset.ts';
import { type AccessRecords, NewTag, NewToken, TagPatch, TagSettings, type UsageReports } from '../state/store.ts';
import { mountVisitsAdmin } from '../visits/admin-routes.ts';
import type { PageViewRecorder } from '../visits/recorder.ts';
import { mountWebhookAdmin, type WebhookAdminDeps } from '../webhooks/routes.ts';
import { type AdminAuth, requireAdminCredential } from './credentials.ts';
import { adminCredentialThrottle, type FailureThrottle } from './throttle.ts';

export interface AdminDeps {
  store: AccessRecords & UsageReports;
  adminAuth: AdminAuth;
  /** Signed webhooks (absent in tests that build the app without them). */
  webhooks?: Omit<WebhookAdminDeps, 'store'>;
  /** Page views: the visitors report and tag sightings (server/visits/admin-routes.ts). */
  dataset?: Dataset;
  recorder?: PageViewRecorder;
}

export function mountAdmin(router: Router, deps: AdminDeps): void {
  const admin = express.Router();
  admin.use(guard(deps.adminAuth, adminCredentialThrottle));
  admin.use(express.json({ limit: '64kb' }));
  const { store } = deps;

  admin.get('/customers', async (_req, res) => void res.json(await store.listCustomers()));
  // Create only: an existing id is a 409 and changes nothing (customers.json import is the replace path).
  admin.post('/customers', async (req, res) => void res.status(201).json(provisionedBody(await createCustomer(store, CustomerSeed.parse(req.body)))));
  admin.get('/customers/:id', async (req, res) => void res.json(await customerOr404(store, req.params.id)));
  // Only the fields given change; the answer is the whole customer.
  admin.patch('/customers/:id', async (req, res) => void res.json(provisionedBody(await updateCustomer(store, req.params.id, CustomerPatch.parse(req.body)))));
  admin.get('/customers/:id/credits', async (req, res) => void res.json(await creditReport(store, await customerOr404(store, req.params.id))));

  admin.get('/tokens', async (req, res) => {
    const customer = typeof req.query.customer === 'string' ? req.query.customer : undefined;
    res.json((await store.listTokens(customer)).map((t) => withAdvice(t)));
  });
  admin.post('/tokens', async (req, res) => {
    const { record, secret } = await store.createToken(NewToken.parse(req.body));
    res.status(201).json({ ...withAdvice(record), token: secret });
  });
  admin.get('/tokens/:id', async (req, res) => {
    const t = await store.getToken(req.params.id);
    if (!t) throw new ApiError('not_found', `unknown token ${req.params.id}`);
    res.json(withAdvice(t));
  });
  admin.post('/tokens/:id/deactivate', async (req, res) => void res.json(withAdvice(await store.setTokenStatus(req.params.id, 'inactive'))));
  admin.post('/tokens/:id/activate', async (req, res) => void res.json(withAdvice(await store.setTokenStatus(req.params.id, 'active'))));
  admin.post('/tokens/:id/rotate', async (req, res) => {
    const { record, secret } = await store.rotateToken(req.params.id);
    res.json({ ...withAdvice(record), token: secret });
  });
  admin.delete('/tokens/:id', async (req, res) => {
    await store.deleteToken(req.params.id);
    res.status(204).end();
  });

  admin.get('/tags', async (req, res) => void res.json(await store.listTags(typeof req.query.customer === 'string' ? req.query.customer : undefined)));
  admin.post('/tags', async (req, res) => void res.status(201).json(await store.createTag(NewTag.parse(req.body))));
  admin.get('/tags/:tagId', async (req, res) => {
    const tag = await store.getTag(req.params.tagId);
    if (!tag) throw new ApiError('not_found', `unknown tag ${req.params.tagId}`);
    res.json(tag);
  });
  // Only the fields given change (allowed domains, limits, scores, segment names, demo, settings).
  admin.patch('/tags/:tagId', async (req, res) => void res.json(await store.updateTag(req.params.tagId, TagPatch.parse(req.body))));
  // Server-managed tag settings, inlined into /tag/v1/<tagId>.js (the whole object: absent keys = bundle defaults).
  admin.patch('/tags/:id/settings', async (req, res) => {
    if (!(await store.getTag(req.params.id))) throw new ApiError('not_found', `unknown tag ${req.params.id}`);
    res.json(await store.updateTagSettings(req.params.id, TagSettings.parse(req.body)));
  });

  if (deps.webhooks) mountWebhookAdmin(admin, { store, ...deps.webhooks });
  if (deps.dataset && deps.recorder) mountVisitsAdmin(admin, { store, dataset: deps.dataset, recorder: deps.recorder });

  router.use('/admin/api', admin);
}

function provisionedBody(p: Provisioned) {
  return { ...p.customer, lead_scoring_token: p.leadScoringToken ?? null };
}

async function customerOr404(store: AccessRecords, id: string) {
  const c = await store.getCustomer(id);
  if (!c) throw new ApiError('not_found', `unknown customer ${id}`);
  return c;
}

function guard(auth: AdminAuth, throttle: FailureThrottle): RequestHandler {
  return (req, res, next) => {
    res.set('Cache-Control', 'no-store');
    requireAdminCredential(req, auth, throttle, 'admin API', ' (SVC_ADMIN_TOKEN, or the token printed at first start)');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (!sameOrigin(req)) throw new ApiError('forbidden', 'admin API: cross-origin requests are refused');
      // A body-less request has no type to check: the token actions (deactivate, activate, rotate) take
      // none, and clients send them with or without a Content-Type (curl without -d sends no length,
      // python-requests sends Content-Length: 0) — refusing those left tokens silently active.
      if (req.method !== 'DELETE' && hasBody(req) && !req.is('application/json'))
        throw new ApiError('unsupported_type', 'admin API: send JSON (Content-Type: application/json)');
    }
    next();
  };
}

/** Whether the request carries a body (RFC 9112 §6.3: a transfer coding, or a non-zero length). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function sameOrigin(req: Request): boolean {
  const origin = req.get('origin');
  if (!origin) return true; // not a browser cross-site request: servers and CLIs send none
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}
