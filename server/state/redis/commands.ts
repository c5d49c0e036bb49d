/**
 * How a Redis adapter of a concern calls Redis (users, crm, digests, alerts): every call within the
 * command deadline (a stalled Redis keeps its connection open, so a missed deadline is how an outage shows),
 * failures as StoreUnavailableError (503), and Lua scripts by their SHA with the source sent once to a Redis
 * that does not know them yet. Written once here so the adapters only store.
 */
import { createHash } from 'node:crypto';
import type { RedisClientType } from '@redis/client';
import { StateError, StoreUnavailableError } from '../errors.ts';
import { retryTryAgain } from './connection.ts';

/**
 * `fn`'s answer within `ms`; a deadline missed or a Redis failure is StoreUnavailableError (503: nothing
 * known to have changed, the call may be retried). StateError and StoreUnavailableError pass as they are.
 */
export async function withinDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } catch (e) {
    if (e instanceof StateError || e instanceof StoreUnavailableError) throw e;
    throw new StoreUnavailableError(`Redis is unavailable: ${(e as Error)?.message ?? e}`, 1, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

const shas = new Map<string, string>();
const shaOf = (script: string): string => {
  let sha = shas.get(script);
  if (sha === undefined) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
  return sha;
};

/**
 * One script call within `ms`: EVALSHA, the source once per Redis that does not know it yet (NOSCRIPT), and
 * again while a Redis Cluster answers TRYAGAIN (its slot is moving).
 */
export function runScript(client: RedisClientType, ms: number, script: string, keys: string[], args: string[]): Promise<unknown> {
  return withinDeadline(ms, () =>
    retryTryAgain(async () => {
      try {
        return await client.evalSha(shaOf(script), { keys, arguments: args });
      } catch (e) {
        if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
        return client.eval(script, { keys, arguments: args });
      }
    }),
  );
}
