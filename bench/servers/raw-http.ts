/**
 * Baseline for the endpoint benchmarks: raw `node:http` sending the same bytes as a real answer
 * (pre-serialized), routed by method and path only. Routes and bodies: BENCH_BODIES, as bare-express.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const bodies = JSON.parse(readFileSync(process.env.BENCH_BODIES!, 'utf8')) as Record<string, unknown>;
const bytes = new Map(Object.entries(bodies).map(([route, body]) => [route, Buffer.from(JSON.stringify(body))]));
const server = createServer((req, res) => {
  const q = req.url!.indexOf('?');
  const body = bytes.get(`${req.method} ${q < 0 ? req.url : req.url!.slice(0, q)}`);
  // Drain a request body (POST) before answering, as any real server must.
  req.resume();
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'private, no-store' });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
