/**
 * A real OpenID Connect provider for single sign-on tests: `oidc-provider` (the certified implementation) on
 * 127.0.0.1 and a random port, with in-memory clients and accounts, PKCE (S256) required, and a minimal
 * login/consent interaction of its own (no password check: any password signs in an account that exists).
 *
 * `login()` plays the browser: it follows the provider's redirects by hand, keeps its cookies, fills in and
 * submits the HTML forms it is shown (login, then consent) and stops at the redirect to the client's
 * callback, which it returns (`…/callback?code=…&state=…&iss=…`). Each call is a fresh browser (no session).
 *
 * oidc-provider 8.x, not 9: v9 supports Node.js 22 LTS and later only (it warns "Unsupported runtime" on 20).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter, type AdapterPayload, type Configuration, type JWK } from 'oidc-provider';

export interface OidcTestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface OidcTestAccount {
  sub: string;
  email: string;
  /** Omitted: the provider does not state it (no `email_verified` claim at all). */
  email_verified?: boolean;
}

export interface OidcProviderOptions {
  clients: OidcTestClient[];
  accounts: OidcTestAccount[];
  /** Lifetime of an authorization code, in seconds (default 60). */
  codeTtlSeconds?: number;
  /**
   * true (default): the ID token carries the scope claims (email, email_verified), as Google or Entra ID do;
   * false: they are only served by the userinfo endpoint (the provider's spec-conforming default).
   */
  claimsInIdToken?: boolean;
}

export interface LoginOptions {
  /** Decline at the consent screen (the client then gets `error=access_denied`). */
  deny?: boolean;
}

export interface OidcTestProvider {
  /** `http://127.0.0.1:<port>` */
  issuer: string;
  /** Drives the interaction for `sub` and returns the redirect to the client's callback. */
  login(authorizationUrl: string, sub: string, opts?: LoginOptions): Promise<string>;
  /**
   * Why the provider refused token requests, as it logs it (`authorization code is expired`, `… already
   * consumed`, `PKCE verification failed` …; clients only see `invalid_grant`), and any internal error.
   */
  tokenErrors: string[];
  close(): Promise<void>;
}

/** oidc-provider's storage, one per instance (its built-in adapter is module-global and warns). */
function memoryAdapterFactory(): (model: string) => Adapter {
  const items = new Map<string, { payload: AdapterPayload; expires: number }>();
  const index = new Map<string, string>(); // `uid:<uid>` / `userCode:<code>` → key; `grant:<id>` → keys joined by \n
  const live = (key: string | undefined): AdapterPayload | undefined => {
    if (key === undefined) return undefined;
    const item = items.get(key);
    if (!item) return undefined;
    if (item.expires <= Date.now()) {
      items.delete(key);
      return undefined;
    }
    return item.payload;
  };
  return (model) => {
    const keyOf = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const key = keyOf(id);
        items.set(key, { payload, expires: Date.now() + expiresIn * 1000 });
        if (payload.uid && model === 'Session') index.set(`uid:${payload.uid}`, key);
        if (payload.userCode) index.set(`userCode:${payload.userCode}`, key);
        if (payload.grantId) {
          const grantKey = `grant:${payload.grantId}`;
          index.set(grantKey, index.has(grantKey) ? `${index.get(grantKey)}\n${key}` : key);
        }
      },
      find: async (id) => live(keyOf(id)),
      findByUid: async (uid) => live(index.get(`uid:${uid}`)),
      findByUserCode: async (userCode) => live(index.get(`userCode:${userCode}`)),
      async consume(id) {
        const payload = live(keyOf(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        items.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        const keys = index.get(`grant:${grantId}`);
        if (keys) for (const key of keys.split('\n')) items.delete(key);
        index.delete(`grant:${grantId}`);
      },
    };
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(`<!doctype html><html><head><title>Test provider</title></head><body>${body}</body></html>`);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startOidcProvider(opts: OidcProviderOptions): Promise<OidcTestProvider> {
  const accounts = new Map(opts.accounts.map((a) => [a.sub, a]));
  let provider: Provider | undefined;
  let handle: ((req: IncomingMessage, res: ServerResponse) => unknown) | undefined;

  // The interaction pages are ours; everything else is the provider's.
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/.exec(url.pathname);
    if (!provider || !handle) {
      res.statusCode = 503;
      return res.end();
    }
    if (!m) return handle(req, res);
    interaction(provider, req, res, m[1]!, m[2]).catch((err: unknown) => {
      if (!res.headersSent) page(res, 400, `<p>interaction failed: ${escapeHtml(String((err as Error)?.message ?? err))}</p>`);
      else res.end();
    });
  });

  async function interaction(p: Provider, req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> {
    const details = await p.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    const { prompt, params, session } = details;
    if (req.method === 'GET' && action === undefined) {
      if (prompt.name === 'login') {
        return page(
          res,
          200,
          `<h1>Sign in</h1><form method="post" action="/interaction/${uid}/login">` +
            `<input type="text" name="login" value="${escapeHtml(String(params.login_hint ?? ''))}">` +
            '<input type="password" name="password"><button type="submit">Sign in</button></form>',
        );
      }
      if (prompt.name === 'consent') {
        return page(
          res,
          200,
          `<h1>Authorize ${escapeHtml(String(params.client_id))}</h1>` +
            `<form method="post" action="/interaction/${uid}/confirm"><button type="submit">Continue</button></form>` +
            `<form method="post" action="/interaction/${uid}/abort"><button type="submit">Cancel</button></form>`,
        );
      }
      throw new Error(`prompt ${prompt.name} not implemented`);
    }
    if (req.method !== 'POST') throw new Error('method not allowed');
    const form = await readForm(req);
    if (action === 'login') {
      const login = form.get('login') ?? '';
      if (prompt.name !== 'login') throw new Error('not at the login prompt');
      if (!accounts.has(login)) return page(res, 401, '<p>unknown account</p>');
      return p.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    }
    if (action === 'abort') {
      return p.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User aborted interaction' }, { mergeWithLastSubmission: false });
    }
    if (action === 'confirm') {
      if (prompt.name !== 'consent' || !session?.accountId) throw new Error('not at the consent prompt');
      const grant = details.grantId ? await p.Grant.find(details.grantId) : new p.Grant({ accountId: session.accountId, clientId: String(params.client_id) });
      if (!grant) throw new Error('grant not found');
      const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      const grantId = await grant.save();
      return p.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    throw new Error('unknown interaction action');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'test-rs256', alg: 'RS256', use: 'sig' } as JWK;
  const codeTtl = opts.codeTtlSeconds ?? 60;

  const configuration: Configuration = {
    clients: opts.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      redirect_uris: c.redirect_uris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        async claims() {
          return { sub, email: account.email, ...(account.email_verified === undefined ? {} : { email_verified: account.email_verified }), name: sub };
        },
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: opts.claimsInIdToken === false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { methods: ['S256'], required: () => true },
    adapter: memoryAdapterFactory(),
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [signingKey] },
    ttl: {
      AuthorizationCode: codeTtl,
      AccessToken: 600,
      ClientCredentials: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
      IdToken: 600,
      RefreshToken: 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = `<!doctype html><p>error: ${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`;
    },
  };
  provider = new Provider(issuer, configuration);
  // Koa would print every non-exposed error; the tests look at what the client gets instead.
  provider.app.silent = true;
  handle = provider.callback();
  const tokenErrors: string[] = [];
  provider.on('grant.error', (_ctx: unknown, err: { error?: string; error_detail?: string; message?: string }) => {
    tokenErrors.push(err.error_detail ?? err.error ?? String(err.message));
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => tokenErrors.push(`server_error: ${err.message}`));
  const redirectOrigins = opts.clients.flatMap((c) => c.redirect_uris.map((u) => new URL(u)));

  return {
    issuer,
    tokenErrors,
    login: (authorizationUrl, sub, loginOpts = {}) => browse(issuer, redirectOrigins, authorizationUrl, sub, loginOpts),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

/** A browser's cookie handling, enough for one host: path-scoped, replaced by name+path, deleted when expired. */
class CookieJar {
  private cookies = new Map<string, StoredCookie>();

  store(res: Response, requestPath: string): void {
    for (const header of res.headers.getSetCookie()) {
      const [pair, ...attrs] = header.split(';');
      const eq = pair!.indexOf('=');
      if (eq <= 0) continue;
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      let path = requestPath.replace(/\/[^/]*$/, '') || '/';
      let expired = false;
      for (const attr of attrs) {
        const [k, v = ''] = attr.split('=').map((s) => s.trim());
        const key = k!.toLowerCase();
        if (key === 'path' && v.startsWith('/')) path = v;
        if (key === 'max-age' && Number(v) <= 0) expired = true;
        if (key === 'expires' && Date.parse(v) <= Date.now()) expired = true;
      }
      const id = `${name}\n${path}`;
      if (expired) this.cookies.delete(id);
      else this.cookies.set(id, { name, value, path });
    }
  }

  header(requestPath: string): string {
    const matches = (path: string) => requestPath === path || requestPath.startsWith(path.endsWith('/') ? path : `${path}/`);
    return [...this.cookies.values()]
      .filter((c) => matches(c.path))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

interface HtmlForm {
  action: string;
  method: string;
  fields: Map<string, string>;
}

/** The forms of a page, with their named inputs' values (enough for the pages this provider renders). */
function parseForms(html: string): HtmlForm[] {
  const attr = (tag: string, name: string) => new RegExp(`\\s${name}\\s*=\\s*"([^"]*)"`, 'i').exec(tag)?.[1];
  const decodeEntities = (s: string) =>
    s
      .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
      .replace(/&(amp|lt|gt|quot);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[e]!);
  const forms: HtmlForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const fields = new Map<string, string>();
    for (const input of m[2]!.matchAll(/<input\b[^>]*>/gi)) {
      const name = attr(input[0], 'name');
      if (name) fields.set(name, decodeEntities(attr(input[0], 'value') ?? ''));
    }
    forms.push({ action: decodeEntities(attr(m[1]!, 'action') ?? ''), method: (attr(m[1]!, 'method') ?? 'get').toLowerCase(), fields });
  }
  return forms;
}

async function browse(issuer: string, callbacks: URL[], authorizationUrl: string, sub: string, opts: LoginOptions): Promise<string> {
  const jar = new CookieJar();
  const origin = new URL(issuer).origin;
  const isCallback = (u: URL) => callbacks.some((c) => c.origin === u.origin && c.pathname === u.pathname);

  let next: { url: URL; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: new URL(authorizationUrl), method: 'GET' };
  for (let hop = 0; hop < 30; hop++) {
    if (isCallback(next.url)) return next.url.href;
    if (next.url.origin !== origin) throw new Error(`login: unexpected redirect to ${next.url.origin}${next.url.pathname}`);
    const cookie = jar.header(next.url.pathname);
    const res = await fetch(next.url, {
      method: next.method,
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        ...(cookie ? { cookie } : {}),
        ...(next.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: next.body?.toString(),
    });
    jar.store(res, next.url.pathname);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.arrayBuffer();
      next = { url: new URL(location, next.url), method: 'GET' };
      continue;
    }
    const html = await res.text();
    if (res.status !== 200)
      throw new Error(
        `login: ${next.method} ${next.url.pathname} answered ${res.status}: ${html
          .replace(/<[^>]+>/g, ' ')
          .trim()
          .slice(0, 300)}`,
      );
    const forms = parseForms(html).filter((f) => f.method === 'post');
    const loginForm = forms.find((f) => f.fields.has('login'));
    let form: HtmlForm | undefined;
    if (loginForm) {
      form = loginForm;
      form.fields.set('login', sub);
      if (form.fields.has('password')) form.fields.set('password', 'any password');
    } else {
      // The consent page: its first form allows, the one going to …/abort declines.
      form = opts.deny ? forms.find((f) => f.action.endsWith('/abort')) : forms.find((f) => !f.action.endsWith('/abort'));
    }
    if (!form) throw new Error(`login: no form to submit at ${next.url.pathname}`);
    next = { url: new URL(form.action || next.url.href, next.url), method: 'POST', body: new URLSearchParams([...form.fields]) };
  }
  throw new Error('login: too many redirects');
}
