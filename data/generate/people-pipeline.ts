/**
 * Where people generation runs: in the generating thread (small runs, tests) or in a worker thread (large
 * runs: people.csv is over half of the output, and the worker writes it while the main thread makes
 * companies and networks — about twice as fast on two cores). Both run the same PeopleStream on the same
 * lines, so the files are identical either way (pinned by a test).
 */
import { Worker } from 'node:worker_threads';
import { ENGAGEMENT_COLUMNS, PERSON_COLUMNS } from '../sources/schema.ts';
import { CsvWriter } from './csv-writer.ts';
import { PeopleStream, type PeopleStreamOptions } from './people-stream.ts';
import type { PeopleWorkerData } from './people-worker.ts';

export interface PeoplePipeline {
  /** Takes one company line (`encodePeopleJob`). */
  add(line: string): void;
  /** Resolves when the pipeline can take more (backpressure). */
  drain(): Promise<void>;
  /** Finishes both files. */
  close(): Promise<{ people: number; engagement: number }>;
  /** Abandons the run after a failure elsewhere. */
  abort(): void;
}

export interface PeopleFiles {
  peopleFile: string;
  engagementFile: string;
}

export function inlinePeople(opts: PeopleStreamOptions, files: PeopleFiles): PeoplePipeline {
  const people = new CsvWriter(files.peopleFile, PERSON_COLUMNS);
  const engagement = new CsvWriter(files.engagementFile, ENGAGEMENT_COLUMNS);
  const stream = new PeopleStream(opts, people, engagement);
  return {
    add: (line) => stream.add(line),
    drain: async () => {
      await Promise.all([people.drain(), engagement.drain()]);
    },
    close: async () => {
      await Promise.all([people.close(), engagement.close()]);
      return { people: stream.peopleRows, engagement: stream.engagementRows };
    },
    abort: () => {
      people.destroy();
      engagement.destroy();
    },
  };
}

/** Companies per message to the worker, and messages in flight before `drain` waits. */
const BATCH = 500;
const IN_FLIGHT = 32;

export function workerPeople(opts: PeopleStreamOptions, files: PeopleFiles): PeoplePipeline {
  const workerData: PeopleWorkerData = { ...opts, ...files };
  const worker = new Worker(new URL('./people-worker.mjs', import.meta.url), { workerData });
  let failure: Error | null = null;
  let batch: string[] = [];
  let inFlight = 0;
  let wake: (() => void) | null = null;
  let finish: ((r: { people: number; engagement: number }) => void) | null = null;
  let finishFailed: ((e: Error) => void) | null = null;
  let finished = false;

  const fail = (e: Error) => {
    failure ??= e;
    wake?.();
    finishFailed?.(failure);
  };
  worker.on('message', (msg: { ack?: boolean; done?: boolean; people: number; engagement: number }) => {
    if (msg.ack) {
      inFlight--;
      wake?.();
    } else if (msg.done) {
      finished = true;
      finish?.({ people: msg.people, engagement: msg.engagement });
    }
  });
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (!finished) fail(new Error(`people worker stopped (exit code ${code}) before finishing`));
  });

  const send = () => {
    if (batch.length === 0) return;
    worker.postMessage({ lines: batch.join('\n') });
    batch = [];
    inFlight++;
  };

  return {
    add(line) {
      batch.push(line);
      if (batch.length >= BATCH) send();
    },
    async drain() {
      while (!failure && inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      if (failure) throw failure;
    },
    async close() {
      send();
      const done = new Promise<{ people: number; engagement: number }>((resolve, reject) => {
        finish = resolve;
        finishFailed = reject;
      });
      if (failure) throw failure;
      worker.postMessage({ end: true });
      const result = await done;
      await worker.terminate();
      return result;
    },
    abort() {
      void worker.terminate();
    },
  };
}
