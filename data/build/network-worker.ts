/** Worker thread of `data build`: builds networks.mmdb (./network-index.ts) and posts the result. */
import { parentPort, workerData } from 'node:worker_threads';
import { SourceError } from '../sources/read.ts';
import { readCompanyIds, writeNetworkIndex } from './network-index.ts';

const { dir, out } = workerData as { dir: string; out: string };
try {
  const result = await writeNetworkIndex(dir, out, await readCompanyIds(dir));
  parentPort!.postMessage({ ok: true, result });
} catch (e) {
  parentPort!.postMessage({ ok: false, message: (e as Error).message, source: e instanceof SourceError });
}
