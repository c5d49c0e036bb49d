/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name> [options]` runs one.
 * Each prints its figures and a ratio against a baseline measured in the same run, and appends a row to
 * bench/RESULTS.md. Nothing here passes or fails on time.
 */
import { benchBuild } from './build.ts';
import { benchCluster } from './cluster.ts';
import { benchCrm } from './crm.ts';
import { benchEnrichment, benchIdentification, benchWorkers } from './endpoints.ts';
import { benchEnrich } from './enrich.ts';
import { benchEvents } from './events.ts';
import { benchHome } from './home.ts';
import { benchImport } from './import.ts';
import { benchLogLine } from './log-line.ts';
import { benchLookalikes } from './lookalikes.ts';
import { benchLookup } from './lookup.ts';
import { benchMetering } from './metering.ts';
import { benchNodes } from './nodes.ts';
import { setCommand } from './results.ts';
import { benchRouting } from './routing.ts';
import { benchSegments } from './segments.ts';
import { benchStart } from './start.ts';
import { benchTag } from './tag.ts';
import { benchWebhooks } from './webhooks.ts';

const BENCHMARKS: Record<string, (args: string[]) => Promise<void>> = {
  lookup: benchLookup,
  identification: benchIdentification,
  enrichment: benchEnrichment,
  workers: benchWorkers,
  events: benchEvents,
  tag: benchTag,
  build: benchBuild,
  nodes: benchNodes,
  cluster: benchCluster,
  start: benchStart,
  import: benchImport,
  'log-line': benchLogLine,
  metering: benchMetering,
  routing: benchRouting,
  segments: benchSegments,
  enrich: benchEnrich,
  crm: benchCrm,
  home: benchHome,
  lookalikes: benchLookalikes,
  webhooks: benchWebhooks,
};

const [name, ...args] = process.argv.slice(2);
if (name !== undefined && !(name in BENCHMARKS)) {
  console.error(`unknown benchmark ${JSON.stringify(name)}; one of: ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
const selected = name === undefined ? Object.keys(BENCHMARKS) : [name];
for (const n of selected) {
  setCommand(`npm run bench -- ${[n, ...(name === undefined ? [] : args)].join(' ')}`);
  await BENCHMARKS[n](name === undefined ? [] : args);
}
