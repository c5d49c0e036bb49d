/**
 * `generateSources`: deterministic, believable sample sources for the data build (`data/sources/schema.ts`).
 *
 * Same seed → byte-identical files: every choice comes from the seeded generator in `random.ts` (no clock,
 * no Math.random, no locale formatting; dates are relative to a fixed "now", 2026-11-01). Each concern
 * draws from its own stream derived from the seed (companies, networks, intent, topics, people, engagement), so a
 * change in how people are made does not reshuffle the networks, and people can be made in another thread.
 *
 * Rows stream to the files as they are made (buffered writes, backpressure between batches of companies):
 * memory stays flat whatever the number of companies, apart from the set of domains that keeps them unique.
 * From PARALLEL_FROM companies, people.csv and engagement.csv are written by a worker thread
 * (`people-pipeline.ts`); 1,000,000 companies take about 40 s and 0.4 GB on two cores.
 *
 * Guarantees for any seed and any `companies` ≥ 20 (ANCHORS in customers.ts; pinned by guarantees.test.ts):
 * a member of each demo segment, the demo customer's excluded and hot accounts, each owning a company
 * network of High/Very High confidence with nothing nested in it and never overridden; an ISP, a hosting
 * and a bot network that answer for their kind. `GenerateSummary.demo` names them with an address inside.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CustomersFile } from '../../core/customer-records.ts';
import { type Progress, SILENT } from '../progress.ts';
import { COMPANY_COLUMNS, DOMAIN_COLUMNS, INTENT_COLUMNS, NETWORK_COLUMNS, SOURCE_FILES, TOPIC_COLUMNS } from '../sources/schema.ts';
import { intentFor } from './activity.ts';
import { type Company, CompanyFactory } from './companies.ts';
import { CsvWriter } from './csv-writer.ts';
import { ANCHORS, type AnchorRole, customersFile, DEMO_CUSTOMER_ID } from './customers.ts';
import { type DemoNetwork, NetworkPlanner } from './networks.ts';
import { inlinePeople, type PeoplePipeline, workerPeople } from './people-pipeline.ts';
import { encodePeopleJob } from './people-stream.ts';
import { Rng } from './random.ts';
import { type TopicSignal, topicsFor } from './topics.ts';

export interface GenerateOptions {
  /** Folder to write the source files into (created if missing; existing files are replaced). */
  out: string;
  /** Number of companies, ≥ 1. People, networks and signals scale with it. */
  companies: number;
  /** Any text or number; `1` and `"1"` are the same seed. */
  seed: string | number;
  /**
   * Write people.csv and engagement.csv from a worker thread (same bytes, about twice as fast on two
   * cores). Default: from PARALLEL_FROM companies up.
   */
  parallel?: boolean;
  /** Where the operator sees how far it is (terminal only; default silent). */
  progress?: Progress;
}

export const PARALLEL_FROM = 20_000;

/** Defaults of `npm run svc -- data generate` (and of the committed `data/sample/`). */
export const GENERATE_DEFAULTS = { companies: 2000, seed: '1' } as const;

/** Upper bound that keeps the address plan within public IPv4 space (1M companies use ~60% of it). */
export const MAX_COMPANIES = 1_500_000;

export interface DemoAccount extends DemoNetwork {
  name: string;
  /** Why the account is there: the segment it is a member of, or what kind of excluded/hot account it is. */
  label: string;
}

export interface GenerateSummary {
  out: string;
  seed: string;
  companies: number;
  /** Rows (without the header) and bytes of every file written. */
  files: Record<keyof typeof SOURCE_FILES, { file: string; rows: number; bytes: number }>;
  networksByKind: Record<string, number>;
  /** /16 blocks of IPv4 space the networks occupy. */
  blocksUsed: number;
  ms: number;
  /** Visitors the demo can rely on: an address in each guaranteed network. */
  demo: {
    customer: string;
    segment: DemoAccount[];
    excluded: DemoAccount[];
    hot: DemoAccount[];
    isp: DemoNetwork;
    hosting: DemoNetwork;
    bot: DemoNetwork;
    /** An address that belongs to no network (documentation range, never allocated). */
    none: string;
  };
}

const BATCH = 256;

export async function generateSources(opts: GenerateOptions): Promise<GenerateSummary> {
  const started = performance.now();
  const companies = opts.companies;
  if (!Number.isInteger(companies) || companies < 1 || companies > MAX_COMPANIES) {
    throw new RangeError(`companies must be an integer from 1 to ${MAX_COMPANIES}, got ${companies}`);
  }
  const seed = String(opts.seed);
  if (seed.length === 0) throw new RangeError('seed must not be empty');
  await mkdir(opts.out, { recursive: true });

  // One stream per concern, derived from the seed (people-stream.ts derives its own the same way).
  const planRng = new Rng(`${seed}#plan`);
  const companyRng = new Rng(`${seed}#companies`);
  const networkRng = new Rng(`${seed}#networks`);
  const network6Rng = new Rng(`${seed}#networks6`);
  const privacyRng = new Rng(`${seed}#privacy`);
  const intentRng = new Rng(`${seed}#intent`);
  const topicRng = new Rng(`${seed}#topics`);

  const file = (key: keyof typeof SOURCE_FILES) => join(opts.out, SOURCE_FILES[key]);
  const writers = {
    companies: new CsvWriter(file('companies'), COMPANY_COLUMNS),
    networks: new CsvWriter(file('networks'), NETWORK_COLUMNS),
    domains: new CsvWriter(file('domains'), DOMAIN_COLUMNS),
    intent: new CsvWriter(file('intent'), INTENT_COLUMNS),
    topics: new CsvWriter(file('topics'), TOPIC_COLUMNS),
  };
  const all = Object.values(writers);
  const peopleOpts = { seed, salt: planRng.uint32() };
  const peopleFiles = { peopleFile: file('people'), engagementFile: file('engagement') };
  let people: PeoplePipeline | undefined;

  try {
    people = (opts.parallel ?? companies >= PARALLEL_FROM) ? workerPeople(peopleOpts, peopleFiles) : inlinePeople(peopleOpts, peopleFiles);

    // Anchors sit among the first companies (early rows: what `data build` samples for the demo).
    const slots = planRng.shuffle(Array.from({ length: Math.min(companies, 40) }, (_, i) => i));
    const anchorAt = new Map<number, number>();
    ANCHORS.forEach((_, a) => {
      if (a < slots.length) anchorAt.set(slots[a], a);
    });

    const factory = new CompanyFactory(companyRng);
    const planner = new NetworkPlanner(networkRng, writers.networks, network6Rng, privacyRng);
    const guaranteed = planner.start();
    const anchorIds: (string | undefined)[] = [];
    const anchorAccounts: (DemoAccount | undefined)[] = [];
    const companyCols = COMPANY_COLUMNS;
    const companyCells: string[] = new Array(companyCols.length);

    const progress = opts.progress ?? SILENT;
    progress.phase('companies', companies);
    for (let i = 0; i < companies; i++) {
      const a = anchorAt.get(i);
      const anchor = a === undefined ? undefined : ANCHORS[a];
      const c: Company = factory.make(i, anchor?.constraints);
      const row = factory.row(c);
      for (let k = 0; k < companyCols.length; k++) companyCells[k] = row[companyCols[k]];
      writers.companies.write(companyCells);
      for (const d of c.extraDomains) writers.domains.write([d, c.id]);

      const protectedNet = planner.forCompany(c, anchor !== undefined);
      planner.afterCompany(i);
      if (anchor && protectedNet) {
        anchorIds[a!] = c.id;
        anchorAccounts[a!] = { ...protectedNet, name: c.name, label: anchor.label };
      }

      people.add(encodePeopleJob(c, a));
      // The company's signals, kept as written: its weekly topic scores follow them (./topics.ts).
      const signals: TopicSignal[] = [];
      const intentRows = {
        write(fields: readonly string[]) {
          writers.intent.write(fields);
          signals.push({ topic: fields[1], strength: Number(fields[2]), observed_at: fields[3] });
        },
      };
      intentFor(intentRng, c, intentRows, anchor?.focusTopics);
      topicsFor(topicRng, c.id, signals, anchor?.focusTopics ?? [], writers.topics);

      if (i % BATCH === BATCH - 1) {
        await Promise.all([...all.map((w) => w.drain()), people.drain()]);
        progress.update(i + 1);
      }
    }
    progress.update(companies);
    progress.end();
    planner.finish();
    progress.phase('finishing'); // people.csv and engagement.csv drain from their pipeline
    const [counts] = await Promise.all([people.close(), ...all.map((w) => w.close())]);
    progress.end();

    const seedFile = customersFile(anchorIds);
    const customers = CustomersFile.parse(seedFile);
    await writeFile(file('customers'), JSON.stringify(seedFile, null, 2) + '\n');

    // In the order of the customer's configuration: segment[0] is the member of its first segment.
    const accounts: Record<AnchorRole, DemoAccount[]> = { segment: [], excluded: [], hot: [] };
    ANCHORS.forEach((anchor, k) => {
      if (anchorAccounts[k]) accounts[anchor.role].push(anchorAccounts[k]);
    });

    const files = {} as GenerateSummary['files'];
    for (const key of Object.keys(SOURCE_FILES) as (keyof typeof SOURCE_FILES)[]) {
      const rows =
        key === 'customers' ? customers.customers.length : key === 'people' ? counts.people : key === 'engagement' ? counts.engagement : writers[key].rows;
      files[key] = { file: file(key), rows, bytes: (await stat(file(key))).size };
    }
    return {
      out: opts.out,
      seed,
      companies,
      files,
      networksByKind: { ...planner.counts },
      blocksUsed: planner.blocksUsed,
      ms: Math.round(performance.now() - started),
      demo: {
        customer: DEMO_CUSTOMER_ID,
        ...accounts,
        ...guaranteed,
        none: '203.0.113.77',
      },
    };
  } catch (e) {
    for (const w of all) w.destroy();
    people?.abort();
    throw e;
  }
}
