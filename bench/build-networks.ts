/**
 * `networks.mmdb` alone, as `data build` makes it (in its worker thread), for `npm run bench -- build`:
 * the company ids are read first and handed over at once, then the clock runs from starting the worker
 * to its answer. Prints { ms, cpuMs, networks } as JSON (cpuMs: user + system of the whole process).
 *
 *   node --import tsx bench/build-networks.ts SOURCES_DIR OUT_DIR
 */
import { mkdirSync } from 'node:fs';
import { CompanyRow } from '../core/catalog-records.ts';
import { writeNetworkIndexInWorker } from '../data/build/network-index.ts';
import { readCsvBatches, sourcePath } from '../data/sources/read.ts';

const [sources, out] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const ids: string[] = [];
for await (const rows of readCsvBatches(sourcePath(sources, 'companies'), CompanyRow)) for (const r of rows) ids.push(r.company_id);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const worker = writeNetworkIndexInWorker(sources, out);
worker.companyIds(ids);
const { count } = await worker.result;
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, networks: count }));
