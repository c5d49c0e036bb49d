/**
 * Worker-thread side of `people-pipeline.ts`: runs a PeopleStream over the company lines it is sent and writes
 * people.csv and engagement.csv itself. Loaded through `people-worker.mjs` (which registers tsx in the thread).
 *
 * Messages in: `{ lines: string }` (companies, one per line), then `{ end: true }`.
 * Messages out: `{ ack: true }` after each batch is written, `{ done: true, people, engagement }` at the end.
 * Any failure is thrown, which ends the worker with an 'error' event in the parent.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ENGAGEMENT_COLUMNS, PERSON_COLUMNS } from '../sources/schema.ts';
import { CsvWriter } from './csv-writer.ts';
import { PeopleStream, type PeopleStreamOptions } from './people-stream.ts';

export interface PeopleWorkerData extends PeopleStreamOptions {
  peopleFile: string;
  engagementFile: string;
}

const data = workerData as PeopleWorkerData;
const port = parentPort!;
const people = new CsvWriter(data.peopleFile, PERSON_COLUMNS);
const engagement = new CsvWriter(data.engagementFile, ENGAGEMENT_COLUMNS);
const stream = new PeopleStream(data, people, engagement);

/** Batches are handled strictly in order. */
let queue: Promise<void> = Promise.resolve();

port.on('message', (msg: { lines?: string; end?: boolean }) => {
  queue = queue.then(async () => {
    if (msg.lines !== undefined) {
      for (const line of msg.lines.split('\n')) stream.add(line);
      await Promise.all([people.drain(), engagement.drain()]);
      port.postMessage({ ack: true });
    } else if (msg.end) {
      await Promise.all([people.close(), engagement.close()]);
      port.postMessage({ done: true, people: stream.peopleRows, engagement: stream.engagementRows });
      port.close();
    }
  });
  queue.catch((e: unknown) => {
    people.destroy();
    engagement.destroy();
    // Rethrown outside the promise chain: the worker dies with an 'error' event in the parent.
    setImmediate(() => {
      throw e;
    });
  });
});
