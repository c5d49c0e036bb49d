/**
 * The origin this deployment's links point to (invitation and sign-in links, SSO callbacks, schema ids).
 *
 * SVC_PUBLIC_URL when set. Without it the request's Host header is only taken when the deployment vouches
 * for it — a loopback name (localhost, 127.0.0.1, [::1]: a developer's machine, the tests), the address the
 * server listens on, an entry of SVC_ALLOWED_HOSTS, or any Host in demo mode — because the client chooses
 * it: an invitation link built on `Host: attacker.example` would send its token there when the invitee
 * clicks it. Any other Host gets the listening address (http://HOST:port, localhost for a wildcard HOST).
 */
import { isSecureRequest } from '../auth/session.ts';
import type { Config } from '../config.ts';
import type { RouteContext } from './route-def.ts';

const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** Whether links may be built on this Host header (lower-cased `name[:port]`). */
export function acceptedHost(host: string, config: Pick<Config, 'HOST' | 'SVC_ALLOWED_HOSTS' | 'SVC_DEMO'>, listenPort: number | undefined): boolean {
  const m = HOST_HEADER.exec(host);
  if (!m) return false;
  const name = m[1]!;
  if (config.SVC_DEMO || LOOPBACK.has(name)) return true;
  const port = m[2] === undefined ? [80, 443] : [Number(m[2])];
  if (!WILDCARD.has(config.HOST) && name === config.HOST.toLowerCase() && port.includes(listenPort ?? -1)) return true;
  return config.SVC_ALLOWED_HOSTS.some((allowed) => allowed === host || allowed === name);
}

/** SVC_PUBLIC_URL, else this request's origin when its Host is accepted (https as the session cookie decides it), else the listening address. */
export function publicBase(ctx: RouteContext): string {
  const { config, trustProxy } = ctx.services;
  if (config.SVC_PUBLIC_URL) return config.SVC_PUBLIC_URL;
  const scheme = isSecureRequest(ctx.req.raw, config, trustProxy) ? 'https' : 'http';
  const host = (ctx.req.get('host') ?? '').trim().toLowerCase();
  const port = ctx.req.raw.socket.localPort ?? config.PORT;
  if (acceptedHost(host, config, port)) return `${scheme}://${host}`;
  const name = WILDCARD.has(config.HOST) ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `${scheme}://${name}:${port}`;
}
