/**
 * Stand-alone runner, for regenerating the committed sample and for measuring:
 *   npx tsx data/generate/run.ts                       → data/sample/ with the defaults (2000 companies, seed 1)
 *   npx tsx data/generate/run.ts --out DIR --companies N --seed S
 * Prints the summary as JSON. The product CLI (`npm run svc -- data generate`) calls `generateSources` itself.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GENERATE_DEFAULTS, generateSources } from './generate.ts';

export const SAMPLE_DIR = fileURLToPath(new URL('../sample/', import.meta.url));

const { values } = parseArgs({
  options: { out: { type: 'string' }, companies: { type: 'string' }, seed: { type: 'string' } },
});
const summary = await generateSources({
  out: values.out ?? SAMPLE_DIR,
  companies: values.companies === undefined ? GENERATE_DEFAULTS.companies : Number(values.companies.replaceAll('_', '')),
  seed: values.seed ?? GENERATE_DEFAULTS.seed,
});
process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
