/**
 * The one pipeline, run for every API route of the table, in the documented order of checks:
 *   authenticate (401; group / package / domain 403) → CORS origin → rate limit (429) → input (415/413/400/422)
 *   → handler (lookup; 404) → charge (402, never for HEAD) → send.
 * A route whose handler only reads (`meterAfterHandler`: identification, the enrichment lookups) runs the
 * rate limit after the handler, with the charge, as one metering operation; its answers are those of the
 * documented order (a refused request gets 429 whatever its input or lookup, and nothing is charged for it).
 * One error path (errors.ts `errorAnswer`: a thrown domain error becomes the spec's body through one status
 * table), one response writer (`send`: one `writeHead` of a header array and one `end`; a streamed body:
 * `sendStream`), one observer call per response (log line + metrics). Headers set before an error (Vary,
 * CORS, RateLimit-*) stay on its answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import accepts from 'accepts';
import { ApiError } from '../../core/error-codes.ts';
import { authenticateAnyToken, authenticateTag, authenticateToken, type Caller } from '../auth/authenticate.ts';
import { requireAdminCredential } from '../auth/operator-credential.ts';
import { actorOf, type Principal } from '../auth/principal.ts';
import { adminCredentialThrottle } from '../auth/throttle.ts';
import type { ChargeableApi } from '../credits/rules.ts';
import { noteCustomer } from '../observability/request-facts.ts';
import type { Observer, Trace } from '../observability/request-observer.ts';
import type { Services } from '../services.ts';
import type { RateLimitHit } from '../state/metering/service.ts';
import { ApiRequest, type RawQuery } from './api-request.ts';
import { parseFields, parseRecord, readAnyText, readFields, readJson } from './body.ts';
import { describeRequest, errorAnswer } from './errors.ts';
import { setRateLimitHeaders } from './metering-steps.ts';
import { trustedRequestIdOf } from './request-id.ts';
import { type ApiRouteDef, type AuditEntry, type BodySpec, JSON_TYPE, type RouteAuth, type RouteContext, type RouteResult } from './route-def.ts';
import { authorize, workspacePrincipal } from './workspace-access.ts';

/** Whether the client closed its connection before its answer was written. */
export function clientGone(res: ServerResponse): boolean {
  return res.destroyed || res.socket?.destroyed === true;
}

/** Everything a request of a route carries through the pipeline. */
class Call implements RouteContext {
  caller: Caller | null = null;
  principal: Principal | null = null;
  scope: string | null = null;
  body: unknown = undefined;
  query: unknown;
  rateLimit: RateLimitHit | null = null;
  readonly head: boolean;
  /** The answer's headers so far, as flat name/value pairs (what `writeHead` takes). */
  readonly headers: string[];

  constructor(
    readonly req: ApiRequest,
    readonly services: Services,
    trace: Trace,
    fixed: Readonly<Record<string, string>> | undefined,
    private readonly res: ServerResponse,
  ) {
    this.head = req.raw.method === 'HEAD';
    this.query = req.query;
    this.headers = ['X-Request-Id', trace.id];
    if (fixed) for (const name in fixed) this.headers.push(name, fixed[name]!);
  }

  header(name: string, value: string): void {
    this.headers.push(name, value);
  }

  async charge(charge: { api: ChargeableApi; record: string }, as?: Caller): Promise<void> {
    const caller = as ?? this.caller;
    if (caller === null) throw new Error(`${this.req.path}: a route without a customer caller charges nothing`);
    if (clientGone(this.res)) return;
    await this.services.pipeline.charge(caller, charge, trustedRequestIdOf(this.req.raw, this.services.trustProxy), this.res);
  }

  async audit(entry: AuditEntry): Promise<void> {
    await this.services.users.appendAudit({
      customer_id: entry.customer,
      at: new Date().toISOString(),
      actor: entry.as ? `user:${entry.as.id} ${entry.as.email}` : actorOf(this.principal),
      ip: this.req.ip ?? null,
      action: entry.action,
      target: entry.target ?? null,
      before: entry.before ?? null,
      after: entry.after ?? null,
    });
  }
}

/** Who is asking, per the route's `auth` (null for routes without a customer caller). */
async function authenticate(auth: RouteAuth, call: Call, body: BodySpec<unknown> | undefined): Promise<Caller | null> {
  const { req, services } = call;
  switch (auth.kind) {
    case 'public':
      return null;
    case 'token':
      return authenticateToken(services.store, req, auth.group);
    case 'any-token':
      return authenticateAnyToken(services.store, req);
    case 'tag-or-token': {
      // An Authorization header always means token mode; tag mode is the tokenless browser path.
      const tag = req.query.tag;
      if (req.get('authorization') !== undefined || typeof tag !== 'string' || tag === '') return authenticateToken(services.store, req, 'identification');
      const caller = await authenticateTag(services.store, req, tag);
      // Where the tag is installed ("installed on"): seen whether or not this lookup is then answered.
      services.recorder?.tagSeen(tag, caller.corsOrigin);
      return caller;
    }
    case 'tag': {
      const tag = req.query.tag;
      if (typeof tag !== 'string' || tag === '') throw new ApiError('unauthenticated', 'page views need the web tag: POST /v1/events?tag=<tag id>');
      return authenticateTag(services.store, req, tag);
    }
    case 'admin':
      call.principal = await workspacePrincipal(call, body?.types === 'text' || body?.types === 'stream' ? (body.media ?? []) : []);
      return null;
    case 'operator':
      // The same credential as the admin API, so the same throttle: /metrics is no side door for guessing it.
      requireAdminCredential(req, services.adminAuth, adminCredentialThrottle, 'metrics', ', or scrape the SVC_METRICS_PORT port');
      return null;
  }
}

/** Parses the query and reads the body; a promise only when there is a body to wait for. */
function readInput(def: ApiRouteDef, call: Call): Promise<void> | undefined {
  if (def.query) call.query = parseRecord(def.query, call.req.query);
  const spec = def.body;
  if (!spec || spec.types === 'stream') return undefined;
  return readBody(spec, call);
}

async function readBody(spec: BodySpec<unknown>, call: Call): Promise<void> {
  const raw = call.req.raw;
  const body =
    spec.types === 'fields' ? await readFields(raw, spec.limit) : spec.types === 'json' ? await readJson(raw, spec.limit) : await readAnyText(raw, spec.limit);
  if (!spec.schema) call.body = body;
  else call.body = spec.validation === 'fields' ? (spec.fast?.(body) ?? parseFields(spec.schema, body)) : parseRecord(spec.schema, body ?? {});
}

async function answer(def: ApiRouteDef, call: Call, res: ServerResponse): Promise<RouteResult> {
  const caller = await authenticate(def.auth, call, def.body);
  const { services, req } = call;
  const report = (hit: RateLimitHit) => {
    call.rateLimit = hit;
    setRateLimitHeaders(hit, (name, value) => call.header(name, value));
  };
  if (caller !== null) {
    call.caller = caller;
    noteCustomer(res, caller.customer.id); // for the request's log line
    if (caller.corsOrigin) call.header('Access-Control-Allow-Origin', caller.corsOrigin);
    if (!def.meterAfterHandler) await services.pipeline.rateLimit(caller, req.ip ?? '', report);
  }
  let result: RouteResult;
  if (caller === null || !def.meterAfterHandler) result = await handle(def, call);
  else {
    try {
      result = await handle(def, call);
    } catch (e) {
      // The documented order: a refused request is answered 429 whatever else is wrong with it.
      await services.pipeline.rateLimit(caller, req.ip ?? '', report);
      throw e;
    }
  }
  // An answer whose client is gone (it gave up, e.g. while a stalled store was timing out) is never
  // received, so it exports nothing: not charged. HEAD carries no answer, so it exports no record either.
  const charge = result.charge && caller !== null && result.status === 200 && !call.head && !clientGone(res) ? result.charge : null;
  const requestId = charge ? trustedRequestIdOf(req.raw, services.trustProxy) : null;
  if (caller !== null && def.meterAfterHandler) await services.pipeline.rateLimitAndCharge(caller, req.ip ?? '', report, charge, requestId, res);
  else if (charge !== null) await services.pipeline.charge(caller!, charge, requestId, res);
  // A customer's answer is theirs alone: no shared cache keeps it.
  if (caller !== null && !result.headers?.['Cache-Control']) call.header('Cache-Control', 'private, no-store');
  if (result.stream) return { ...result, stream: await primed(result.stream) };
  return result;
}

/** Authorization, the input and the handler. */
async function handle(def: ApiRouteDef, call: Call): Promise<RouteResult> {
  // Only a workspace principal has anything to authorize, only a body to wait for: the API routes' hot
  // path takes no extra turn of the microtask queue for steps that do nothing.
  const scopeInBody = def.access?.customer.from === 'body';
  if (call.principal !== null && !scopeInBody) await authorize(def, call);
  const reading = readInput(def, call);
  if (reading !== undefined) await reading;
  if (call.principal !== null && scopeInBody) await authorize(def, call);
  return def.handler(call);
}

/**
 * The stream with its first chunk already read (an error so far is thrown here: the pipeline's error
 * path), the rest read as it is consumed; stopping early ends the source too.
 */
async function primed(stream: AsyncIterable<string | Buffer>): Promise<AsyncIterableIterator<string | Buffer>> {
  const it = stream[Symbol.asyncIterator]();
  let first: IteratorResult<string | Buffer> | null = await it.next();
  const iterator: AsyncIterableIterator<string | Buffer> = {
    [Symbol.asyncIterator]: () => iterator,
    next() {
      const held = first;
      first = null;
      return held === null ? it.next() : Promise.resolve(held);
    },
    async return() {
      first = null;
      await it.return?.();
      return { done: true, value: undefined };
    },
  };
  return iterator;
}

/** The one response writer: a status, the header list, and a JSON body, a text body or none. */
export function send(res: ServerResponse, status: number, headers: string[], result: RouteResult | null, json: unknown, head: boolean): void {
  let data: string | Buffer | undefined;
  if (result?.text !== undefined) {
    data = result.text;
    if (result.type) headers.push('Content-Type', result.type);
  } else if (json !== undefined) {
    data = JSON.stringify(json);
    headers.push('Content-Type', JSON_TYPE);
  }
  if (data !== undefined) headers.push('Content-Length', String(typeof data === 'string' ? Buffer.byteLength(data) : data.length));
  res.writeHead(status, headers);
  res.end(head ? undefined : data);
}

/** The answer's headers so far with the handler's own added (a multi-valued one as several pairs). */
function withResultHeaders(headers: string[], result: RouteResult): string[] {
  for (const name in result.headers) {
    const value = result.headers[name]!;
    if (typeof value === 'string') headers.push(name, value);
    else for (const v of value) headers.push(name, v);
  }
  return headers;
}

function sendResult(res: ServerResponse, call: Call, result: RouteResult): void {
  const headers = withResultHeaders(call.headers, result);
  send(res, result.status, headers, result, result.body, call.head);
}

/**
 * The writer of a streamed body: the head, then the chunks through gzip when the client accepts it,
 * with backpressure (stream.pipeline). Resolves when the body is written or cut: a failure after the head
 * can no longer be an error answer, so it is logged (unless the client left) and the connection closed.
 */
async function sendStream(res: ServerResponse, call: Call, result: RouteResult, stream: AsyncIterable<string | Buffer>): Promise<void> {
  const headers = withResultHeaders(call.headers, result);
  if (result.type) headers.push('Content-Type', result.type);
  const gzip = accepts(call.req.raw).encoding(['gzip', 'identity']) === 'gzip';
  headers.push('Vary', 'Accept-Encoding');
  if (gzip) headers.push('Content-Encoding', 'gzip');
  res.writeHead(result.status, headers);
  if (call.head) {
    await stream[Symbol.asyncIterator]().return?.();
    res.end();
    return;
  }
  // The source's own failure is logged; the client leaving (the pipeline's other failure) is not.
  let failed: unknown = null;
  const source = Readable.from(
    (async function* () {
      try {
        yield* stream;
      } catch (e) {
        failed = e;
        throw e;
      }
    })(),
    { objectMode: false },
  );
  try {
    await (gzip ? pipeline(source, createGzip(), res) : pipeline(source, res));
  } catch {
    if (failed !== null) {
      const e = failed as Error;
      call.services.log.error(`${describeRequest(call.req.raw.method, call.req.raw.url ?? '')}: answer cut after its head: ${e?.stack ?? String(e)}`);
    }
    res.destroy();
  }
}

function sendError(res: ServerResponse, call: Call, err: unknown): void {
  // An answer already under way cannot become an error answer.
  if (res.headersSent) {
    res.destroy(err instanceof Error ? err : undefined);
    return;
  }
  const services = call.services;
  const a = errorAnswer(err, services.log, () => describeRequest(call.req.raw.method, call.req.raw.url ?? ''));
  const headers = call.headers;
  // The error's own headers win over those of the same name set before it (a 429's RateLimit-*).
  for (const name in a.headers) {
    const lower = name.toLowerCase();
    for (let i = headers.length - 2; i >= 0; i -= 2) if (headers[i]!.toLowerCase() === lower) headers.splice(i, 2);
    headers.push(name, a.headers[name]!);
  }
  try {
    send(res, a.status, headers, null, a.body, call.head);
  } catch (e) {
    // A header Node refuses (a value a handler took from the request): the error answer without the route's headers.
    const b = errorAnswer(e, services.log, () => describeRequest(call.req.raw.method, call.req.raw.url ?? ''));
    send(res, b.status, ['X-Request-Id', headers[1]!], null, b.body, call.head);
  }
}

/** Runs `def` for one request: the pipeline, the answer or the error answer, then the observer. */
export function runRoute(
  def: ApiRouteDef,
  services: Services,
  observer: Observer,
  raw: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
  query: RawQuery,
): void {
  const trace = observer.begin(raw, def.path);
  const url = raw.url ?? '';
  const q = url.indexOf('?');
  const req = new ApiRequest(raw, q < 0 ? url : url.slice(0, q), params, query, services.trustProxy);
  const call = new Call(req, services, trace, def.headers, res);
  // One reaction per outcome (no promise chain of catch-alls on the hot path): a failure while sending the
  // answer becomes the error answer, then the observer and the route's work after the answer run once.
  const finish = (after: (() => void) | undefined) => {
    observer.done(raw, res, trace);
    if (after === undefined) return;
    try {
      after();
    } catch (e) {
      services.log.error(`${describeRequest(raw.method, url)}: after the answer: ${(e as Error)?.stack ?? String(e)}`);
    }
  };
  const failed = (err: unknown) => {
    sendError(res, call, err);
    finish(undefined);
  };
  answer(def, call, res).then((result) => {
    if (result.stream) {
      sendStream(res, call, result, result.stream).then(() => finish(result.after), failed);
      return;
    }
    try {
      sendResult(res, call, result);
    } catch (err) {
      failed(err);
      return;
    }
    finish(result.after);
  }, failed);
}
