/** Worker thread of `data build`: loads people.csv into a SQLite file of its own (./people.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { answer } from './bulk.ts';
import { buildPeopleFile } from './people.ts';

const { dir, file } = workerData as { dir: string; file: string };
await answer(() => buildPeopleFile(dir, file, (n) => parentPort!.postMessage({ progress: n })));
