/**
 * Inlined into <head> before the snippet: records what the tag emits (svc:ready, svc:error, dataLayer
 * pushes) from the very first moment, so the event log shows events that fired before app.js loaded.
 * Demo-only instrumentation, not part of what a customer pastes.
 */
import type { DemoLogEntry } from './log.ts';

declare global {
  interface Window {
    __svcDemoLog?: DemoLogEntry[];
  }
}

const w = window;
const log: DemoLogEntry[] = (w.__svcDemoLog = []);
const add = (type: DemoLogEntry['type'], detail: unknown) => {
  log.push({ type, detail, at: Math.round(performance.now()) });
  document.dispatchEvent(new CustomEvent('svcdemo:log'));
};
document.addEventListener('svc:ready', (e) => add('svc:ready', e.detail));
document.addEventListener('svc:error', (e) => add('svc:error', e.detail));
// Elements are not JSON: the log shows each as tag#id (or its data-testid).
const describe = (el: Element) =>
  el.tagName.toLowerCase() + (el.id ? '#' + el.id : el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : '');
document.addEventListener('svc:personalized', (e) =>
  add('svc:personalized', { elements: e.detail.elements.map((x) => ({ ...x, element: describe(x.element) })) }),
);
// GTM's convention: declare the array, never replace it. The tag pushes into this one.
const dataLayer = (w.dataLayer = w.dataLayer || []);
const push = dataLayer.push;
dataLayer.push = (...items: unknown[]) => {
  for (const item of items) add('dataLayer.push', item);
  return push.apply(dataLayer, items);
};
