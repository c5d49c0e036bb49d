/** The configured state store (SQLite, or Redis with SVC_REDIS_URL) opened for one command and closed whatever happens. */
import { type Config, loadConfig } from '../config.ts';
import { openStateStore } from '../state/open-store.ts';
import type { StateStore } from '../state/store.ts';
import type { VisitStore } from '../state/visits.ts';
import type { WebhookStore } from '../state/webhooks.ts';

export async function withStore<T>(fn: (store: StateStore, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStateStore(config);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

export interface AllStores {
  state: StateStore;
  visits: VisitStore;
  webhooks: WebhookStore;
}

/** The state store with the visit store and the webhook outbox beside it, as a server opens them. */
export async function withAllStores<T>(fn: (stores: AllStores, config: Config) => Promise<T>): Promise<T> {
  // Loaded only here: every other command would pay for the Redis client and the recorder's modules.
  const [{ openVisitStore }, { openWebhookStore }] = await Promise.all([import('../visits/open-recorder.ts'), import('../state/open-webhook-store.ts')]);
  return withStore(async (state, config) => {
    const visits = await openVisitStore(config, state);
    try {
      const webhooks = await openWebhookStore(config, state);
      try {
        return await fn({ state, visits, webhooks }, config);
      } finally {
        await webhooks.close();
      }
    } finally {
      await visits.close();
    }
  });
}
