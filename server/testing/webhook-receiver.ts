/** A real HTTP receiver for webhook tests: records every request and answers with scripted statuses. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Statuses (or status and headers, e.g. a 429's Retry-After) for the next requests, in order; after them every request gets `otherwise`. */
  answer(statuses: Array<number | ScriptedAnswer>, otherwise?: number): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let script: Array<number | ScriptedAnswer> = [];
  let otherwise = 200;
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const next = script.length ? script.shift()! : otherwise;
      const scripted = typeof next === 'number' ? { status: next } : next;
      res.writeHead(scripted.status, scripted.headers);
      res.end('ok');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/svc`,
    received,
    answer(statuses, fallback = 200) {
      script = [...statuses];
      otherwise = fallback;
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: ${received.length} of ${count} requests after ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
