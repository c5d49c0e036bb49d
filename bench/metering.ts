/**
 * `npm run bench -- metering [--requests N] [--rounds R]`: what the SQLite state store's metering (rate-limit
 * hits and charges, server/state/metering/sqlite.ts `meterBatch`) costs per request, in process, without HTTP:
 * the operations of a tag-mode lookup (a visitor counter and the tag's counter; a charge for every second
 * request, the Matches, no dedupe key) and of an enrichment POST (the token's counter; a charge with its
 * monthly dedupe key, most of them repeats and free), queued as the pipeline queues them and committed in
 * one transaction per batch. Batch sizes: 22 requests (what one event-loop turn carries in the
 * identification benchmark at 50 connections: 44 operations per commit, counted), 88, and 1 (a
 * transaction per request: the baseline that shows what batching buys). Median CPU µs (user + system) per
 * request over rounds; a fresh state file per mix.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteStateStore } from '../server/state/sqlite/store.ts';
import { runFolder } from './bench-data.ts';
import { median, record } from './results.ts';

type Mix = 'tag' | 'enrichment';
const BATCHES = [1, 22, 88] as const;
const WINDOW_MS = 60_000;
/** Distinct visitor addresses (tag) and lead emails (enrichment), as the endpoint benchmarks' mixes. */
const DISTINCT = 2000;

/** One batch of `size` requests' metering operations, all queued in one turn, awaited together. */
function batch(store: SqliteStateStore, mix: Mix, size: number, first: number, nowMs: number): Promise<unknown[]> {
  const ops: Promise<unknown>[] = [];
  const at = new Date(nowMs).toISOString();
  for (let i = 0; i < size; i++) {
    const n = (first + i) % DISTINCT;
    if (mix === 'tag') {
      const ip = `10.${n >> 8}.${n & 255}.7`;
      const counters = [
        { key: `tag:bench:ip:${ip}`, limit: 1e9 },
        { key: 'tag:bench', limit: 1e9 },
      ];
      ops.push(store.hitRateLimits({ customer_id: 'bench', counters, windowMs: WINDOW_MS, nowMs, degradable: true }));
      if (i % 2 === 0) {
        const charge = { api: 'identification', pool: 'identification', record: ip, dedupe_key: null, token_id: null } as const;
        ops.push(store.charge({ customer_id: 'bench', ...charge, period: '2026-01-01', quota: 1e12, month: at.slice(0, 7), partner: null, at }));
      }
    } else {
      const email = `lead${n}@bench.example`;
      ops.push(store.hitRateLimits({ customer_id: 'bench', counters: [{ key: 'token:bench', limit: 1e9 }], windowMs: WINDOW_MS, nowMs, degradable: false }));
      const month = at.slice(0, 7);
      const charge = { api: 'company-firmographics-v3', pool: 'enrichment', record: email, dedupe_key: `bench|v3|${email}|${month}`, token_id: 'tok' } as const;
      ops.push(store.charge({ customer_id: 'bench', ...charge, period: '2026-01-01', quota: 1e12, month, partner: null, at }));
    }
  }
  return Promise.all(ops);
}

/** CPU µs per request of `batches` batches of `size` requests (after as many unmeasured, to warm up). */
async function measure(store: SqliteStateStore, mix: Mix, size: number, batches: number, clock: { ms: number }): Promise<number> {
  let request = 0;
  const run = async (n: number) => {
    for (let b = 0; b < n; b++) {
      clock.ms += 2;
      await batch(store, mix, size, request, clock.ms);
      request += size;
    }
  };
  await run(Math.ceil(batches / 4));
  const before = process.cpuUsage();
  await run(batches);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (batches * size);
}

export async function benchMetering(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { requests: { type: 'string' }, rounds: { type: 'string' } } });
  const requests = Number(values.requests ?? 40_000);
  const rounds = Number(values.rounds ?? 3);
  const work = runFolder('metering');
  for (const mix of ['tag', 'enrichment'] as const) {
    const store = new SqliteStateStore(join(work, `${mix}.db`));
    const clock = { ms: Date.UTC(2026, 10, 26) };
    const samples = new Map<number, number[]>(BATCHES.map((b) => [b, []]));
    try {
      for (let round = 0; round < rounds; round++) {
        for (const size of BATCHES) {
          const us = await measure(store, mix, size, Math.max(1, Math.round(requests / size)), clock);
          samples.get(size)!.push(us);
          console.log(`   ${mix}, round ${round + 1}, batches of ${String(size).padStart(2)}: ${us.toFixed(2)} µs/request`);
        }
      }
    } finally {
      await store.close();
    }
    const [one, turn, big] = BATCHES.map((b) => median(samples.get(b)!));
    const what =
      mix === 'tag'
        ? 'a tag-mode lookup (visitor + tag counters, a charge per Match: every second request)'
        : 'an enrichment POST (token counter, a deduplicated charge)';
    record({
      benchmark: `metering, SQLite state store, in process: ${what}; ${requests.toLocaleString('en-US')} requests per point × ${rounds} rounds`,
      figures: `CPU per request: batches of 22 requests ${turn.toFixed(2)} µs, of 88 ${big.toFixed(2)} µs, one transaction per request ${one.toFixed(2)} µs`,
      ratio: `batch of 22/one per request ${(turn / one).toFixed(2)}×, batch of 88/batch of 22 ${(big / turn).toFixed(2)}×`,
    });
  }
}
