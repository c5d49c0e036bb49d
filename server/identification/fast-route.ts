/**
 * `GET /v3/company/details` on `node:http` alone, in the fast lane (server/http/fast-lane.ts): the same
 * steps as the router's route (./route.ts, through apiRoute and the pipeline) — authentication, rate
 * limit, lookup, charge — with the answer written as one header array and one string. Why: with the
 * handler on Express's request/response, res.json/res.send/res.set/res.vary and req.query (re-parsed on
 * every read) were ~32% of the route's CPU (--cpu-prof, token mode). Measured (bench/RESULTS.md, issue 13
 * rows, server CPU per response): token mode 159 → 53 µs, tag mode 219 → 70 µs, together with the
 * amortised metering batch and the other fixes of that commit range; then 51 and 69 µs against raw
 * node:http's 23–24 µs and bare Express's 125–134 µs. Tag mode's own work after that (account pages kept
 * while unchanged, scoring keys per product list, parsed dates, tagSeen and host verdicts, charge month and
 * contract year remembered, the one-parameter query below): 61 → 50 µs (raw node:http 22–23 → 22 µs in the
 * same runs; token mode 52 → 46 µs).
 * Tried and left out: a serializer specialised for the response shape (string concatenation with a JSON
 * escape check) beat JSON.stringify by 0.7 µs per body alone, but lost 0.1 µs once Buffer.byteLength and
 * the socket write flatten its rope string (micro-benchmark on 300 tag-mode bodies).
 * Error answers (401/403/429/402/400/503) go through the app's error handler, so they are Express's own.
 * fast-lane.test.ts compares its answers with the router's, header by header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import express from 'express';
import { meteredAnswer } from '../http/api-route.ts';
import type { FastHandler, Lane } from '../http/fast-lane.ts';
import { trustedRequestIdOf } from '../http/request-id.ts';
import { type IdentificationDeps, type IdentificationRequest, identificationAnswer, identificationCaller, type RawQuery } from './route.ts';

/**
 * Characters for which Express's URL parser (parseurl) leaves its fast path for Node's legacy `url.parse`
 * (whose query can differ, e.g. cut at '#'): such requests are left to Express.
 */
const UNUSUAL_URL = /[\t\n\f\r #\u00a0\ufeff]/;

/** One `name=value` of characters node:querystring leaves as they are (no %, +, &, =, ;). */
const SIMPLE_QUERY = /^([\w.~-]+)=([\w.~-]*)$/;

/**
 * The query as node:querystring parses it (what Express's "simple" parser gives the router's route). Both
 * modes send one plain parameter (`?tag=…`, `?ip=…`): that case is read with one regex into the same
 * null-prototype object, and anything else goes to node:querystring. Why: querystring.parse costs ~0.7 µs
 * even for `tag=bench-tag-17` (micro-benchmark), ~1.4% of a tag-mode lookup's CPU (--cpu-prof).
 */
export function parseQuery(search: string): RawQuery {
  const m = SIMPLE_QUERY.exec(search);
  if (m === null) return parseQueryString(search) as RawQuery;
  const query: RawQuery = Object.create(null);
  query[m[1]] = m[2];
  return query;
}

/** The request as ./route.ts reads it: headers as Express's `req.get`, `ip` as Express's `req.ip`. */
class FastRequest implements IdentificationRequest {
  private address: string | undefined | null = null;
  constructor(
    private readonly raw: IncomingMessage,
    private readonly lane: Lane,
  ) {}

  get(name: string): string | undefined {
    // Express's own `req.get`, which reads only `this.headers` (referer/referrer included).
    return express.request.get.call(this.raw, name) as string | undefined;
  }

  get ip(): string | undefined {
    if (this.address === null) this.address = this.lane.ip(this.raw);
    return this.address;
  }
}

export function identificationFastRoute(deps: IdentificationDeps): FastHandler {
  return (raw, res, trace, lane) => {
    const h = raw.headers;
    const url = raw.url ?? '';
    // Express answers a conditional GET from its freshness check (If-None-Match: * gets a 304): its own.
    if (h['if-none-match'] !== undefined || h['if-modified-since'] !== undefined || UNUSUAL_URL.test(url)) {
      lane.express(raw, res, trace);
      return;
    }
    const q = url.indexOf('?');
    const query = q < 0 ? {} : parseQuery(url.slice(q + 1));
    // The headers set so far, in the order the router's route sets them: an error answer keeps them.
    const headers: string[] = ['X-Request-Id', trace.id, 'Vary', 'Origin'];
    answer(deps, new FastRequest(raw, lane), raw, res, lane, query, headers)
      .then((json) => {
        headers.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(json)));
        res.writeHead(200, headers);
        res.end(json);
        lane.done(raw, res, trace);
      })
      // A failure while writing (a header value Node refuses) is answered like any other: never unhandled.
      .catch((err: unknown) => lane.fail(raw, res, trace, err, headers));
  };
}

/** The router's route's steps (meteredAnswer, as apiRoute runs them), with the headers collected in `headers`. */
async function answer(
  deps: IdentificationDeps,
  req: FastRequest,
  raw: IncomingMessage,
  res: ServerResponse,
  lane: Lane,
  query: RawQuery,
  headers: string[],
): Promise<string> {
  const caller = await identificationCaller(deps, req, query);
  const result = await meteredAnswer(
    deps.pipeline,
    caller,
    {
      visitorIp: req.ip ?? '',
      head: false, // the fast lane takes GET only
      requestId: () => trustedRequestIdOf(raw, lane.trustProxy),
      res,
      setHeader: (name, value) => void headers.push(name, value),
    },
    () => identificationAnswer(deps, req, query, caller),
  );
  return JSON.stringify(result.body);
}
