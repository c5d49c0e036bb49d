/** The OpenAPI operations of the web tag's files (assets.ts, mounted by the app shell), over the shared kit. */
import examples from '../openapi/examples.json' with { type: 'json' };
import { errorSchema, errors, header, type Json, RETRY } from '../openapi/kit.ts';

const ex = examples;

export const tagBundleDocs = {
  get: {
    operationId: 'getTagBundle',
    summary: 'The web tag bundle',
    tags: ['Web tag'],
    security: [],
    responses: {
      200: {
        description: 'JavaScript (gzip when accepted)',
        headers: { ETag: header('ETag', true) },
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
      304: { description: 'Not modified (If-None-Match)', headers: { ETag: header('ETag', true) } },
      ...errors([404]),
    },
  },
};

/** A TypeScript declarations file the tag build writes and the server serves as text. */
function typesOperation(operationId: string, summary: string): { get: Json } {
  return {
    get: {
      operationId,
      summary,
      tags: ['Web tag'],
      security: [],
      responses: {
        200: {
          description: 'TypeScript declarations (text)',
          headers: { ETag: header('ETag', true) },
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        304: { description: 'Not modified (If-None-Match)', headers: { ETag: header('ETag', true) } },
        ...errors([404]),
      },
    },
  };
}

export const tagTypesDocs = typesOperation('getTagTypes', "The tag's TypeScript declarations: window.svc, answers, events, dataLayer pushes");

export const tagPreactTypesDocs = typesOperation('getTagPreactTypes', 'TypeScript declarations of the Preact helper (dist/tag/preact.js)');

export const tagBundleForTagDocs = {
  get: {
    operationId: 'getTagBundleForTag',
    summary: "A tag's bundle with its settings inlined (`<tagId>.js`), or the integrations chunk (`integrations.<hash>.js`)",
    description:
      'The integrations chunk (GA4 and Segment) is the ES module a bundle with the integrations feature imports when a tool is asked for; ' +
      'its name is its content hash, so it is served with `Cache-Control: public, max-age=31536000, immutable` (a bundle: `public, max-age=300`).',
    tags: ['Web tag'],
    security: [],
    parameters: [
      {
        name: 'file',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^([A-Za-z0-9_-]{1,64}|integrations\\.[A-Za-z0-9_-]{6})\\.js$' },
        example: `${ex.request.tag}.js`,
      },
    ],
    responses: {
      200: {
        description: 'JavaScript (Brotli or gzip when accepted)',
        headers: { ETag: header('ETag', true) },
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
      304: { description: 'Not modified (If-None-Match)', headers: { ETag: header('ETag', true) } },
      404: {
        description: 'Unknown tag or chunk (a JavaScript comment, so a page that loads it runs nothing), or the bundle is not built (JSON)',
        content: { 'application/javascript': { schema: { type: 'string' } }, 'application/json': { schema: errorSchema(404) } },
      },
      ...errors([503], () => RETRY),
    },
  },
};
