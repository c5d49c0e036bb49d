/** Worker thread of `data build`: builds networks.mmdb (./network-index.ts) and posts the result. */
import { once } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { answer } from './bulk.ts';
import { writeNetworkIndex } from './network-index.ts';

const { dir, out } = workerData as { dir: string; out: string };
// The main thread posts the company ids (one string, '\n'-separated) once it has read companies.csv.
const companyIds = once(parentPort!, 'message').then(([ids]) => new Set((ids as string) === '' ? [] : (ids as string).split('\n')));
await answer(() => writeNetworkIndex(dir, out, companyIds));
