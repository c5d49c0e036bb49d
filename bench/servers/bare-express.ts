/**
 * Baseline for the endpoint benchmarks: a bare Express 5 app whose routes answer a fixed JSON body (the
 * same bytes as a real answer of the route), with the app settings of server/app.ts and nothing else —
 * no authentication, limits, lookups or credits. Routes and bodies: BENCH_BODIES (a JSON file of
 * {"GET /path": body, …}). Started like the real server (bench/http-load.ts).
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const bodies = JSON.parse(readFileSync(process.env.BENCH_BODIES!, 'utf8')) as Record<string, unknown>;
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
for (const [route, body] of Object.entries(bodies)) {
  const [method, path] = route.split(' ');
  const handler: express.RequestHandler = (_req, res) => {
    res.set('Cache-Control', 'private, no-store');
    res.json(body);
  };
  if (method === 'POST') app.post(path, handler);
  else app.get(path, handler);
}
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
