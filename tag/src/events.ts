/**
 * Events are DOM CustomEvents `svc:<name>` on `document`; `svc.on(name, cb)` is a listener for them that
 * hands `cb` the event's `detail`. A callback that throws is reported on the console, never rethrown.
 */
import type { SvcEventMap } from './types.ts';

export const report = (e: unknown): void => {
  try {
    console.error('[svc]', e);
  } catch {}
};

/** Calls `f`; an exception is reported, never thrown into the page. */
export function guard<A extends unknown[], R>(f: (...a: A) => R): (...a: A) => R | undefined {
  return (...a) => {
    try {
      return f(...a);
    } catch (e) {
      report(e);
    }
  };
}

export function emitter(doc: Document) {
  return {
    on<K extends keyof SvcEventMap & string>(name: K, cb: (detail: SvcEventMap[K]) => void, once?: boolean): void {
      doc.addEventListener('svc:' + name, (e) => guard(cb)((e as CustomEvent).detail), { once });
    },
    emit<K extends keyof SvcEventMap & string>(name: K, detail: SvcEventMap[K]): void {
      doc.dispatchEvent(new CustomEvent('svc:' + name, { detail }));
    },
  };
}
