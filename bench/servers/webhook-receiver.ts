/**
 * The fast receiver of bench/webhooks.ts: bare `node:http` in a process of its own, answering every POST
 * 200 as soon as its body is in, nothing checked. It counts deliveries and distinct event ids (a duplicate
 * is a redelivery: at-least-once allows them, the bench reports them). `GET /count` answers
 * `{ received, distinct }`; `POST /reset` starts over.
 */
import { createServer } from 'node:http';

let received = 0;
let ids = new Set<string>();
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received, distinct: ids.size }));
    return;
  }
  if (req.url === '/reset') {
    received = 0;
    ids = new Set();
    req.resume();
    res.writeHead(204).end();
    return;
  }
  req.resume();
  req.on('end', () => {
    received++;
    const id = req.headers['svc-event-id'];
    if (typeof id === 'string') ids.add(id);
    res.writeHead(200, { 'content-length': '2' }).end('ok');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
