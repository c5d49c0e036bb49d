/**
 * Listening to the `svc:*` DOM events on `document` (tag.ts dispatches them, logging each in debug mode), and a
 * wrapper that keeps customer callbacks from breaking the tag.
 */
import type { SvcEventMap } from './types.ts';

export type EventName = keyof SvcEventMap;

/**
 * `callback` wrapped: an exception (from the tag or a callback) is reported, never thrown into the host
 * page. The wrapper returns nothing, typed `undefined` so that `!guarded(f)()` is true (integrations.ts).
 */
export const guarded =
  <A extends unknown[]>(callback: (...args: A) => unknown) =>
  (...args: A): undefined => {
    try {
      callback(...args);
    } catch (error) {
      console.error('[svc]', error);
    }
  };

/**
 * Calls `callback` with the detail of every later `svc:<name>` (only the next one when `once`). Its
 * signature is `svc.on`'s, so the live object hands it out as is.
 */
export function listen<K extends EventName>(name: K, callback: (detail: SvcEventMap[K]) => void, once?: boolean): void {
  document.addEventListener(
    'svc:' + name,
    guarded((event: Event) => callback((event as CustomEvent<SvcEventMap[K]>).detail)),
    { once },
  );
}
