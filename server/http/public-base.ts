/** The origin this deployment's links point to (invitation and sign-in links, SSO callbacks, schema ids). */
import { isSecureRequest } from '../auth/session.ts';
import type { RouteContext } from './route-def.ts';

/** SVC_PUBLIC_URL, else this request's own origin (https as the session cookie decides it). */
export function publicBase(ctx: RouteContext): string {
  const { config, trustProxy } = ctx.services;
  if (config.SVC_PUBLIC_URL) return config.SVC_PUBLIC_URL;
  return `${isSecureRequest(ctx.req.raw, config, trustProxy) ? 'https' : 'http'}://${ctx.req.get('host') ?? 'localhost'}`;
}
