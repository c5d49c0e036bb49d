/**
 * `data import`: the operator's licensed IP-intelligence files → our sources folder (companies.csv,
 * networks.csv; the formats of data/sources/schema.ts) that `data build` builds, plus the coverage report.
 *
 *   1. firmographics CSV → companies keyed by domain (./firmographics.ts)
 *   2. network sources (Enterprise, ISP, ASN mmdb, ASN CSV) → one table, resolved by ./precedence.ts
 *   3. Domain db laid over the winners: a network's domain is the Domain db's, else its own (Enterprise)
 *   4. each (network, domain) → kind and company (./user-type.ts, ./resolve.ts)
 *   5. Anonymous IP db laid over the result (`--anonymous-ip`): a flagged network keeps its kind and
 *      company and gains its privacy reason (./geoip2.ts `privacyOf`); one no other source knows is written
 *      as kind `anonymizer` (`hosting` for a hosting provider)
 *   6. City db laid over the result: geo is the network's own (Enterprise), else the City db's
 *   7. rows written, adjacent equal rows merged; the report counted on the way (./report.ts), into a temp
 *      folder that replaces the output folder only once complete (./output-folder.ts)
 *
 * Both families: every step runs once over the IPv4 networks and once over the IPv6 ones (on ranks of
 * their boundaries, ./precedence.ts), with the same rules; IPv4 rows are written first. What is IPv4 in
 * IPv6 (::/96, ::ffff:0:0/96, 2002::/16) is read as IPv4 only (./ipv6.ts).
 *
 * The steps: ./read-inputs.ts (1, 2 and the attribute databases), ./resolve-rows.ts (3–6),
 * ./write-sources.ts (7).
 *
 * 8. `--intent-topics`: a vendor's intent export → topics.csv, its accounts resolved against the companies
 *    just written (./intent-topics.ts; alone, without network sources, against the folder's own companies)
 *
 * Input limits and encodings: CSVs through ../sources/csv-records.ts (field and record lengths, UTF-8 or
 * UTF-16 with a BOM); MaxMind DBs through ./mmdb-networks.ts (search tree and pointers checked).
 */
import { existsSync } from 'node:fs';
import { type Progress, SILENT } from '../progress.ts';
import { ImportError } from './errors.ts';
import { accountKeysOf, type IntentTopicsReport, writeIntentTopics } from './intent-topics.ts';
import { readMapping } from './mapping.ts';
import { checkOutputFolder, replaceFolder } from './output-folder.ts';
import { Ipv6Ranks, PrecedenceTable } from './precedence.ts';
import { givenSources, openReaders, readAttributes, readCompanies, readNetworkSources } from './read-inputs.ts';
import type { CoverageReport } from './report.ts';
import { RowResolver } from './resolve-rows.ts';
import { writeSources } from './write-sources.ts';

export interface ImportOptions {
  out: string;
  geoip2Enterprise?: string;
  geoip2Isp?: string;
  geoip2Domain?: string;
  asnMmdb?: string;
  asnCsv?: string;
  city?: string;
  anonymousIp?: string;
  firmographics?: string;
  mapping?: string;
  /** A vendor's third-party intent export (./intent-topics.ts): topics.csv, resolved against the companies written. */
  intentTopics?: string;
  progress?: Progress;
}

export async function importSources(opts: ImportOptions): Promise<CoverageReport & { intent_topics?: IntentTopicsReport }> {
  const progress = opts.progress ?? SILENT;
  const mapping = readMapping(opts.mapping);
  const given = givenSources(opts);
  checkOutputFolder(opts.out);
  if (opts.intentTopics !== undefined && !existsSync(opts.intentTopics)) throw new ImportError(`--intent-topics ${opts.intentTopics}: no such file`);
  // Open every file first, so a wrong path or type fails before any work.
  const readers = openReaders(opts);

  const companies = await readCompanies(opts.firmographics, mapping, progress);
  const ranks = new Ipv6Ranks();
  const sources: CoverageReport['sources'] = {};
  const { table, networks6, facts } = await readNetworkSources(given, readers, ranks, sources, progress);
  const attributes = readAttributes(readers, opts, ranks, sources);
  ranks.freeze();
  const table6 = new PrecedenceTable();
  for (const v6 of networks6) v6.addTo(table6);

  progress.phase('precedence');
  const resolver = new RowResolver(facts, attributes, companies, mapping);
  const { domainDb, anonymousDb, cityDb } = attributes;
  const out4 = resolver.family(table, domainDb.v4, anonymousDb.v4, cityDb.v4);
  const out6 = resolver.family(table6, domainDb.v6.runs(), anonymousDb.v6.runs(), cityDb.v6.runs());
  progress.end();

  return replaceFolder(opts.out, async (dir) => {
    const report = await writeSources(dir, { out4, out6, rows: resolver.rows, ranks }, companies, sources, progress);
    if (opts.intentTopics === undefined) return report;
    return { ...report, intent_topics: await writeIntentTopics(opts.intentTopics, await accountKeysOf(dir), dir, progress) };
  });
}
