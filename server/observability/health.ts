/**
 * Liveness and readiness for load balancers and orchestrators (nginx, Kubernetes probes):
 *   GET /healthz  200 while the process can answer at all
 *   GET /readyz   200 when the data snapshot answers a lookup and the state store answers a read;
 *                 503 with the reason otherwise (the node should get no traffic)
 */
import type { ErrorBody } from '../../core/error-codes.ts';
import type { Dataset } from '../data/dataset.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import type { StateStore } from '../state/store.ts';
import { livenessDocs, readinessDocs } from './docs.ts';
import { noteStateStoreError } from './request-facts.ts';

export interface HealthDeps {
  dataset: Dataset;
  store: StateStore;
}

/** A store that does not answer within this is as good as down for a request path. */
const STORE_TIMEOUT_MS = 2000;

export type Readiness = { ready: true; checks: { data: 'ok'; state: 'ok' } } | { ready: false; reason: string; checks: { data: string; state: string } };

export async function readiness(deps: HealthDeps): Promise<Readiness> {
  const data = checkData(deps.dataset);
  const state = await checkStore(deps.store);
  if (data === 'ok' && state === 'ok') return { ready: true, checks: { data, state } };
  const reason = [data === 'ok' ? '' : `data: ${data}`, state === 'ok' ? '' : `state store: ${state}`].filter(Boolean).join('; ');
  return { ready: false, reason, checks: { data, state } };
}

function checkData(dataset: Dataset): string {
  try {
    // A lookup on the live snapshot exercises the network index; the catalog answers an (absent) id.
    dataset.current.index.lookup('192.0.2.1');
    dataset.current.catalog.company('0');
    return 'ok';
  } catch (e) {
    return `not loaded (${(e as Error).message})`;
  }
}

/** The cheapest read every store has: one setting. Used as the store's ping until it has its own. */
async function checkStore(store: StateStore): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      store.getSetting('readiness_probe'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch (e) {
    noteStateStoreError('readiness');
    return `unreachable (${(e as Error).message})`;
  } finally {
    clearTimeout(timer);
  }
}

const NO_STORE = { 'Cache-Control': 'no-store' } as const;

export const healthRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/healthz',
    auth: { kind: 'public' },
    headers: NO_STORE,
    doc: livenessDocs.get,
    handler: () => ({ status: 200, body: { status: 'ok' } }),
  }),
  apiRoute({
    method: 'GET',
    path: '/readyz',
    auth: { kind: 'public' },
    headers: NO_STORE,
    doc: readinessDocs.get,
    async handler(ctx) {
      const r = await readiness(ctx.services);
      if (r.ready) return { status: 200, body: { status: 'ok', checks: r.checks } };
      return {
        status: 503,
        body: { status: 'error', message: `not ready: ${r.reason}`, code: 'unavailable', checks: r.checks } satisfies ErrorBody & {
          checks: Readiness['checks'];
        },
      };
    },
  }),
];
