/**
 * The HubSpot stand-in (server/testing/hubspot-stand-in.ts) in a process of its own for bench/crm.ts, so its
 * CPU (JSON bodies of 100 records, the domain index) does not share the sync's event loop. Started with
 * `fork` (`node --import tsx`) and driven over the IPC channel: each message `{ id, op, … }` is answered
 * `{ id, result }` or `{ id, error }`. Its rate limits are the stand-in's defaults (HubSpot's private-app
 * limit, 100 requests per 10 s rolling; search 5 a second).
 *
 * - `start` `{ owners }` → `{ url, token }`
 * - `seed` `{ records }` (properties per company) → `{ companies }`
 * - `mark` → the number of requests logged so far (a phase starts there)
 * - `summary` `{ from }` → what the requests since `from` were (RequestSummary); their bodies are dropped
 *   afterwards (100,000 records written would otherwise stay in this process's memory), but for one
 *   batch update's, kept as `sample`
 * - `ids` `{ limit }` → company ids (the baseline's writes go to them)
 */
import { type HubSpotStandIn, type StandInOwner, startHubSpotStandIn } from '../../server/testing/hubspot-stand-in.ts';

export interface RequestSummary {
  requests: number;
  searches: number;
  /** Batch update requests, and the records they carried. */
  updates: number;
  updateRecords: number;
  /** Batch updates of fewer than 100 records. */
  partialUpdates: number;
  reads: number;
  /** Properties, groups, owners, token introspection. */
  other: number;
  rateLimited: number;
  failed: number;
  /** Arrival of the first and last request (ms, the stand-in's clock). */
  firstAt: number | null;
  lastAt: number | null;
  /** One batch update's body (the first of the range), for the baseline's bodies. */
  sample: { inputs: { id: string; properties: Record<string, string> }[] } | null;
}

type Message =
  | { id: number; op: 'start'; owners: StandInOwner[] }
  | { id: number; op: 'seed'; records: Record<string, string | null>[] }
  | { id: number; op: 'mark' }
  | { id: number; op: 'summary'; from: number }
  | { id: number; op: 'ids'; limit: number }
  | { id: number; op: 'memory' };

let standIn: HubSpotStandIn | undefined;
const need = () => {
  if (!standIn) throw new Error('the stand-in is not started');
  return standIn;
};

function summary(from: number): RequestSummary {
  const s = need();
  const out: RequestSummary = {
    requests: 0,
    searches: 0,
    updates: 0,
    updateRecords: 0,
    partialUpdates: 0,
    reads: 0,
    other: 0,
    rateLimited: 0,
    failed: 0,
    firstAt: null,
    lastAt: null,
    sample: null,
  };
  for (const r of s.requests.slice(from)) {
    out.requests++;
    out.firstAt ??= r.at;
    out.lastAt = r.at;
    if (r.status === 429) out.rateLimited++;
    else if (r.status >= 300 || r.status === 0) out.failed++;
    if (r.method === 'POST' && r.path.endsWith('/search')) out.searches++;
    else if (r.method === 'POST' && r.path === '/crm/v3/objects/companies/batch/update') {
      out.updates++;
      const inputs = (r.body as RequestSummary['sample'])?.inputs ?? [];
      out.updateRecords += inputs.length;
      if (inputs.length < 100) out.partialUpdates++;
      if (out.sample === null && inputs.length > 0) out.sample = r.body as RequestSummary['sample'];
    } else if (r.method === 'POST' && r.path === '/crm/v3/objects/companies/batch/read') out.reads++;
    else out.other++;
    r.body = undefined;
  }
  return out;
}

async function handle(m: Message): Promise<unknown> {
  switch (m.op) {
    case 'start':
      standIn = await startHubSpotStandIn({ owners: m.owners });
      return { url: standIn.url, token: standIn.token };
    case 'seed':
      for (const r of m.records) need().companies.add(r);
      return { companies: need().companies.size };
    case 'mark':
      return need().requests.length;
    case 'summary':
      return summary(m.from);
    case 'ids':
      return need()
        .companies.all()
        .slice(0, m.limit)
        .map((c) => c.id);
    case 'memory':
      return process.memoryUsage().rss;
  }
}

process.on('message', (m: Message) => {
  handle(m).then(
    (result) => process.send!({ id: m.id, result }),
    (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? e.stack : String(e) }),
  );
});
process.on('disconnect', () => {
  void standIn?.close().finally(() => process.exit(0));
  if (!standIn) process.exit(0);
});
