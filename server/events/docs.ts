/** The OpenAPI operations of the event-schema routes (routes.ts), over the shared kit. */
import { errors, json } from '../openapi/kit.ts';

const EVENT_LIST = {
  type: 'object',
  properties: {
    events: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', examples: ['account.visited'] },
          version: { type: 'integer', minimum: 1 },
          channel: { enum: ['dom', 'dataLayer', 'beacon', 'webhook'], description: 'Where the event is emitted' },
          description: { type: 'string' },
          url: { type: 'string', description: 'Where its JSON Schema is served' },
        },
        required: ['name', 'version', 'channel', 'description', 'url'],
      },
    },
  },
  required: ['events'],
};

export const eventSchemasDocs = {
  get: {
    operationId: 'listEventSchemas',
    summary: 'Every event the product emits (tag DOM events, dataLayer pushes, the page-view beacon, webhooks), each version with its JSON Schema URL',
    tags: ['Events'],
    security: [],
    responses: { 200: { description: 'The events and their versions', content: json(EVENT_LIST) } },
  },
};

export const eventSchemaDocs = {
  get: {
    operationId: 'getEventSchema',
    summary: 'The JSON Schema (2020-12) of one event version; its `$id` is this URL. A shipped version never loses or retypes a field',
    tags: ['Events'],
    security: [],
    parameters: [
      { name: 'event', in: 'path', required: true, schema: { type: 'string' }, example: 'account.visited' },
      {
        name: 'file',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[1-9][0-9]*\\.json$' },
        example: '2.json',
        description: '`<version>.json`',
      },
    ],
    responses: {
      200: { description: 'The JSON Schema', content: { 'application/schema+json': { schema: { type: 'object' } } } },
      ...errors([404]),
    },
  },
};
