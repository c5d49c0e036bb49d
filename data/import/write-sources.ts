/**
 * Step 7 of `data import`: the rows written (networks.csv: IPv4 first, counted in addresses, then IPv6,
 * counted in /64 blocks), then companies.csv and the coverage report, into the folder `dir` that
 * output-folder.ts swaps in once complete.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CsvWriter } from '../generate/csv-writer.ts';
import type { Progress } from '../progress.ts';
import { COMPANY_COLUMNS, NETWORK_COLUMNS, SOURCE_FILES } from '../sources/schema.ts';
import { hasFirmographics } from './firmographics.ts';
import { networkText } from './ipv4.ts';
import { blocks64, networkText6 } from './ipv6.ts';
import type { Interner, Ipv6Ranks, RunList } from './precedence.ts';
import type { Companies } from './read-inputs.ts';
import { CoverageCounter, type CoverageReport, IMPORT_REPORT_FILE, ipv6Section } from './report.ts';
import type { Row } from './resolve-rows.ts';

export interface Resolved {
  out4: RunList;
  out6: RunList;
  rows: Interner<Row>;
  /** The IPv6 ranks `out6` is in. */
  ranks: Ipv6Ranks;
}

export async function writeSources(
  dir: string,
  { out4, out6, rows, ranks }: Resolved,
  companies: Companies,
  sources: CoverageReport['sources'],
  progress: Progress,
): Promise<CoverageReport> {
  const counter = new CoverageCounter();
  const counter6 = new CoverageCounter();
  const networks = new CsvWriter(join(dir, SOURCE_FILES.networks), NETWORK_COLUMNS);
  progress.phase('write', out4.length + out6.length);
  // 7. Rows: IPv4 counted in addresses, IPv6 in /64 blocks.
  const write = async (
    out: RunList,
    c: CoverageCounter,
    done: number,
    text: (first: number, last: number) => string,
    size: (first: number, last: number) => number,
  ) => {
    for (let i = 0; i < out.length; i++) {
      const { cells, addressesOf: res, company } = rows.values[out.value[i]];
      const addresses = size(out.first[i], out.last[i]);
      if (res.rule) c.join(res.rule, addresses, res.facts.organization, res.domain, res.facts.userType);
      if (cells === null) {
        c.notWritten(addresses);
        continue;
      }
      networks.write([text(out.first[i], out.last[i]), ...cells]);
      c.network(cells[0], addresses, company ? { id: company.company_id, firmographics: hasFirmographics(company) } : undefined, res.privacy);
      if ((i & 0xffff) === 0) {
        progress.update(done + i);
        await networks.drain();
      }
    }
  };
  try {
    await write(out4, counter, 0, networkText, (first, last) => last - first + 1);
    await write(
      out6,
      counter6,
      out4.length,
      (first, last) => networkText6(ranks.firstAddress(first), ranks.lastAddress(last)),
      (first, last) => blocks64(ranks.lastAddress(last) - ranks.firstAddress(first) + 1n),
    );
  } finally {
    await networks.close();
  }
  progress.end();
  const companyFile = new CsvWriter(join(dir, SOURCE_FILES.companies), COMPANY_COLUMNS);
  let withFirmographics = 0;
  try {
    for (const c of companies.byDomain.values()) {
      companyFile.write(COMPANY_COLUMNS.map((k) => c[k]));
      if (hasFirmographics(c)) withFirmographics++;
    }
  } finally {
    await companyFile.close();
  }
  const report = counter.finish({ total: companies.byDomain.size, withFirmographics }, { sources });
  if (out6.length > 0) report.ipv6 = ipv6Section(counter6.finish({ total: 0, withFirmographics: 0 }), true);
  writeFileSync(join(dir, IMPORT_REPORT_FILE), JSON.stringify(report, null, 2) + '\n');
  return report;
}
