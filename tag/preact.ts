/**
 * `useSvc()`: the web tag's answer as Preact state, for single-page apps that render personalisation
 * themselves instead of (or besides) the `data-svc-*` attributes. A separate ESM entry
 * (`dist/tag/preact.js`, preact external): nothing here is in the tag bundle.
 *
 *   import { useSvc } from '…/tag/preact.ts';
 *   function Hero() {
 *     const { status, data } = useSvc();
 *     const name = data?.company.company_match === 'Match' ? data.company.name : null;
 *     return <h1>{name ? `Acme for ${name}` : 'Acme for teams like yours'}</h1>;
 *   }
 *
 * It works whether the bundle has loaded or not: it reads `window.svc.data` when the bundle is live and
 * listens to `svc:ready` / `svc:error` on `document`; a component mounted later starts from
 * `window.svc.data` / `window.svc.error`. `svcPush` queues commands the same way.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Svc, SvcCommand, SvcData, SvcErrorDetail, SvcReadyDetail } from './src/types.ts';

export type { Svc, SvcCommand, SvcData, SvcErrorDetail, SvcReadyDetail } from './src/types.ts';

export interface SvcState {
  /** `loading` until the first answer or error (also while consent is pending). */
  status: 'loading' | 'ready' | 'error';
  /** The answer (`window.svc.data`), or null. */
  data: SvcData | null;
  /** True when the answer came from the tag's cache. */
  cached: boolean;
  /** The last error (`svc:error` detail), or null. Status 0 with `opted out`, `gpc` or `consent denied`: no lookup by choice. */
  error: SvcErrorDetail | null;
}

const live = (): Svc | null => {
  const s = typeof window === 'undefined' ? null : window.svc;
  return s && !Array.isArray(s) ? s : null;
};

/** The current state as the tag has it (for the first render). */
export function currentSvcState(): SvcState {
  const s = live();
  if (s?.data) return { status: 'ready', data: s.data, cached: false, error: null };
  if (s?.error) return { status: 'error', data: null, cached: false, error: s.error };
  return { status: 'loading', data: null, cached: false, error: null };
}

/** Pushes commands to the tag: queued before the bundle loads, run at once afterwards. */
export function svcPush(...commands: SvcCommand[]): void {
  const w = window as Window;
  const q = (w.svc = w.svc || []);
  q.push(...commands);
}

/** The tag's answer as state: re-renders on every `svc:ready` / `svc:error` (works before and after the bundle loads). */
export function useSvc(): SvcState {
  const [state, setState] = useState<SvcState>(currentSvcState);
  useEffect(() => {
    const ready = (d: SvcReadyDetail) => setState({ status: 'ready', data: d.data, cached: d.cached, error: null });
    const onReady = (e: CustomEvent<SvcReadyDetail>) => ready(e.detail);
    const onError = (e: CustomEvent<SvcErrorDetail>) => setState({ status: 'error', data: null, cached: false, error: e.detail });
    document.addEventListener('svc:ready', onReady);
    document.addEventListener('svc:error', onError);
    // The answer (or an error) may have come between the first render and this effect.
    setState(currentSvcState);
    svcPush(['onReady', ready]);
    return () => {
      document.removeEventListener('svc:ready', onReady);
      document.removeEventListener('svc:error', onError);
    };
  }, []);
  return state;
}
