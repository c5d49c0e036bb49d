/**
 * Liveness and readiness for load balancers and orchestrators (nginx, Kubernetes probes):
 *   GET /healthz  200 while the process can answer at all
 *   GET /readyz   200 when the data snapshot answers a lookup and the state store answers a read;
 *                 503 with the reason otherwise (the node should get no traffic)
 */
import type { Router } from 'express';
import type { ErrorBody } from '../../core/error-codes.ts';
import type { Dataset } from '../data/dataset.ts';
import type { StateStore } from '../state/store.ts';
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

export function mountHealth(router: Router, deps: HealthDeps): void {
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const r = await readiness(deps);
    res.set('Cache-Control', 'no-store');
    if (r.ready) res.json({ status: 'ok', checks: r.checks });
    else
      res.status(503).json({ status: 'error', message: `not ready: ${r.reason}`, code: 'unavailable', checks: r.checks } satisfies ErrorBody & {
        checks: Readiness['checks'];
      });
  });
}
