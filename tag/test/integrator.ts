/**
 * An integrator's code against the tag's public types: what must type-check, and (`@ts-expect-error`)
 * what must not. `tsc --noEmit -p .` checks it against the sources; tag/types.test.ts copies it beside
 * the BUILT declaration files (imports rewritten to `./svc.js`, `./preact.js`) and checks it there, with
 * strict options, under several module resolutions. Never imported by the tag.
 */

import { type SvcState, svcPush, useSvc } from '../preact.ts';
import type { SvcCommand, SvcDataLayerEvent, SvcGlobal, SvcReadyDetail } from '../src/types.ts';

// window.svc before the bundle: the snippet's queue (created if the snippet has not run yet).
(window.svc ||= []).push(['init', { tag: 'acme-web-1' }], ['consent', 'pending']);
window.svc = window.svc || [];
window.svc.push(['setFields', ['name', 'industry']]);
// push on the queue or the live object alike.
window.svc?.push(['consent', 'granted']);
svcPush(['optOut', false]);
// @ts-expect-error not a consent state
window.svc?.push(['consent', 'maybe']);
// @ts-expect-error a command is a tuple
window.svc?.push('personalize');

// window.svc after the bundle: narrow to the live object.
const svc: SvcGlobal | undefined = window.svc;
if (svc && !Array.isArray(svc)) {
  const name: string | null | undefined = svc.data?.company.name;
  svc.on('ready', (detail: SvcReadyDetail) => detail.data.company.company_match);
  svc.on('error', ({ status, message }) => `${status} ${message}`);
  svc.ready(({ cached, hidden }) => (cached ? hidden : name));
}
// @ts-expect-error the queue has no answer: narrow first
window.svc?.data;
// @ts-expect-error the queue has no `on`
window.svc?.on('ready', () => {});

// DOM events.
document.addEventListener('svc:ready', (e) => e.detail.data.company.domain);
document.addEventListener('svc:personalized', (e) => e.detail.elements.filter((x) => x.shown && x.show));

// dataLayer, GTM's usual way, and the tag's pushes told apart by `event`.
window.dataLayer = window.dataLayer || [];
window.dataLayer.push({ event: 'page_view' });
dataLayer.push({ event: 'svc_exposure', svc_rule: 'segment:12', svc_shown: true });
for (const item of window.dataLayer as SvcDataLayerEvent[]) {
  if (item.event === 'svc_company_details_loaded') {
    const match: 'Match' = item.svc_company_match;
    const company: string | null | undefined = item.svc_company_name;
    const city: string | null | undefined = item.svc_geoip_city;
    const flagged: boolean | null | undefined = item.svc_is_blacklisted;
    const stage: 'Purchase' | 'Decision' | 'Consideration' | 'Awareness' | 'Target' = item.svc_cdp_buying_stage;
    const intent: number = item.svc_web_analytics_intent_score;
    const segments: string | null | undefined = item.svc_segment_ids;
    console.log(match, company, city, flagged, stage, intent, segments, item.svc_confidence);
    // @ts-expect-error no such key
    console.log(item.svc_company_nam);
    // @ts-expect-error industry_v2 is a list
    const v2: string | null | undefined = item.svc_industry_v2;
    console.log(v2);
  } else {
    const other: 'No Match' | 'Non-actionable Match' = item.svc_company_match;
    // @ts-expect-error only a match carries company fields
    console.log(other, item.svc_company_name);
  }
}
// @ts-expect-error a match is 'Match'
const wrong: SvcDataLayerEvent = { event: 'svc_company_details_loaded', svc_company_match: 'No Match' };

// The Preact hook's types (the hook itself is not called here).
const state: () => SvcState = useSvc;
const queued: SvcCommand[] = [['onReady', (d) => d.data.company.company_match]];

export { queued, state, wrong };
