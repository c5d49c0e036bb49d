/**
 * What the request log line and the metrics learn from deep inside a request — who the customer was and
 * what was charged — without threading a logger through the pipeline: the pipeline notes them on the
 * response object, the request observer (./request-observer.ts) reads them when the response finishes.
 */
import type { ServerResponse } from 'node:http';
import { creditsCharged, stateStoreErrors } from './metrics.ts';

const FACTS = Symbol('svc.requestFacts');

export interface RequestFacts {
  customer?: string;
  credits?: number;
}

type WithFacts = ServerResponse & { [FACTS]?: RequestFacts };

export function factsOf(res: ServerResponse): RequestFacts | undefined {
  return (res as WithFacts)[FACTS];
}

function facts(res: ServerResponse): RequestFacts {
  return ((res as WithFacts)[FACTS] ??= {});
}

export function noteCustomer(res: ServerResponse, customerId: string): void {
  facts(res).customer = customerId;
}

/** A charge decided by the store: `charged` costs one credit; `free` (a repeat inside its dedupe window) none. */
export function noteCharge(res: ServerResponse, pool: string, api: string, outcome: 'charged' | 'free' | 'exhausted'): void {
  const f = facts(res);
  const credits = outcome === 'charged' ? 1 : 0;
  f.credits = (f.credits ?? 0) + credits;
  if (credits > 0) creditsCharged.inc({ pool, api }, credits);
}

export function noteStateStoreError(operation: string): void {
  stateStoreErrors.inc({ operation });
}
