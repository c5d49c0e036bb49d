/**
 * A page view as acme's web tag sends it from a browser on https://www.acme.test: the beacon's text/plain
 * JSON body to `POST /v1/events?tag=acme-tag`, a real browser's User-Agent, the visitor's address in
 * X-Forwarded-For (the test servers trust the loopback proxy: SVC_TRUST_PROXY=loopback).
 */
import { BROWSER_UA } from './browser-agent.ts';

export interface TestPageView {
  path: string;
  /** The visitor's address. */
  ip: string;
  session?: string;
  referrer?: string;
}

export function sendPageView(serverUrl: string, { path, ip, session = 'tab-session-1', referrer }: TestPageView): Promise<Response> {
  return fetch(`${serverUrl}/v1/events?tag=acme-tag`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://www.acme.test', 'user-agent': BROWSER_UA, 'x-forwarded-for': ip },
    body: JSON.stringify({ type: 'pageview', path, ...(referrer === undefined ? {} : { referrer }), session }),
  });
}
