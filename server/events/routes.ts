/**
 * The event schemas, public: `GET /schemas` lists every event and version with its URL, `GET
 * /schemas/<event>/<version>.json` answers the JSON Schema (./registry.ts). Public and cacheable — they
 * describe payloads, not data — and readable from any origin (an analytics tool validating in a browser).
 */
import { ApiError } from '../../core/error-codes.ts';
import { publicBase } from '../http/public-base.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import { eventSchemaDocs, eventSchemasDocs } from './docs.ts';
import { EVENT_SCHEMAS, eventJsonSchema, eventSchema, schemaPath } from './registry.ts';

const PUBLIC_SCHEMA = { 'Cache-Control': 'public, max-age=3600', 'Access-Control-Allow-Origin': '*' } as const;

export const eventSchemaRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/schemas',
    auth: { kind: 'public' },
    headers: PUBLIC_SCHEMA,
    doc: eventSchemasDocs.get,
    handler(ctx) {
      const base = publicBase(ctx);
      return {
        status: 200,
        body: {
          events: EVENT_SCHEMAS.map((e) => ({
            name: e.name,
            version: e.version,
            channel: e.channel,
            description: e.description,
            url: `${base}${schemaPath(e.name, e.version)}`,
          })),
        },
      };
    },
  }),
  apiRoute({
    method: 'GET',
    path: '/schemas/:event/:file',
    auth: { kind: 'public' },
    headers: PUBLIC_SCHEMA,
    doc: eventSchemaDocs.get,
    handler(ctx) {
      const { event, file } = ctx.req.params as { event: string; file: string };
      const version = /^([1-9][0-9]{0,3})\.json$/.exec(file)?.[1];
      const found = version === undefined ? undefined : eventSchema(event, Number(version));
      if (!found) throw new ApiError('not_found', `no schema ${event} ${file.replace(/\.json$/, '')}: GET /schemas lists every event and version`);
      ctx.header('Content-Type', 'application/schema+json');
      return { status: 200, body: eventJsonSchema(found, publicBase(ctx)) };
    },
  }),
];
