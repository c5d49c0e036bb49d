/** `data build` with the network index and the people table in worker threads builds exactly what the single-threaded build does. */
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { METADATA_START_MARKER } from '../../core/mmdb-format.ts';
import { writeFixtureSources } from '../../server/testing/test-server.ts';
import { SourceError } from '../sources/read.ts';
import { buildDataset } from './build.ts';
import { writeNetworkIndex } from './network-index.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-build-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture sources plus people, domains, engagement and topics (the fixture has none). */
const writeSources = (src: string) => {
  writeFixtureSources(src);
  writeFileSync(
    join(src, 'people.csv'),
    'people_id,email,first_name,last_name,title,company_id,country,state,city,phone,mobile,linkedin_url\n' +
      'P000002,Ann@Acme.example,Ann,Lee,CTO,900001,United States,,,,,https://www.linkedin.com/in/ann-lee/\n' +
      'P000001,bo@acme.example,Bo,"Smith, Jr.",VP Sales,900001,,,,,,\n' +
      'P000003,cy@bluepeak.example,Cy,Ng,,900002,,,,,,http://linkedin.com/in/cy?x=1\n',
  );
  writeFileSync(join(src, 'engagement.csv'), 'people_id,activity,count,observed_at\nP000001,email_open,3,2026-10-17\nP000002,meeting,1,2026-10-18\n');
  writeFileSync(join(src, 'topics.csv'), 'company_id,topic,score,week\n900001,erp,61,2026-10-19\n900001,erp,70,2026-10-26\n900002,crm,40,2026-10-26\n');
};

const tables = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(
      ['companies', 'domains', 'people', 'intent', 'engagement', 'topic_weeks', 'topic_names', 'network_samples'].map((t) => [
        t,
        db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all(),
      ]),
    );
  } finally {
    db.close();
  }
};
/** Index definitions, and the rowids people got (the server reads nothing by rowid, but they should not differ). */
const indexes = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return {
      indexes: db.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all(),
      people: db.prepare('SELECT rowid, people_id FROM people ORDER BY rowid').all(),
    };
  } finally {
    db.close();
  }
};
/** The file without its metadata (which holds the build time). */
const sections = (file: string) => {
  const b = readFileSync(file);
  return b.subarray(0, b.lastIndexOf(METADATA_START_MARKER));
};

it('builds the same files with and without the workers', async () => {
  writeSources(join(dir, 'src'));
  const inline = await buildDataset({ in: join(dir, 'src'), out: join(dir, 'inline'), networksInWorker: false, peopleInWorker: false });
  const worker = await buildDataset({ in: join(dir, 'src'), out: join(dir, 'worker'), networksInWorker: true, peopleInWorker: true });
  const timeless = { out: '', ms: 0, phases: { networks_ms: 0, people_ms: 0, catalog_ms: 0 } };
  expect({ ...worker, ...timeless }).toEqual({ ...inline, ...timeless });
  expect(sections(join(dir, 'worker', 'networks.mmdb')).equals(sections(join(dir, 'inline', 'networks.mmdb')))).toBe(true);
  expect(worker.people).toBe(3);
  expect(tables(join(dir, 'worker', 'catalog.db'))).toEqual(tables(join(dir, 'inline', 'catalog.db')));
  expect(indexes(join(dir, 'worker', 'catalog.db'))).toEqual(indexes(join(dir, 'inline', 'catalog.db')));
  // The worker's file became the catalog with the main thread's tables copied in: every index agrees with its table.
  const db = new Database(join(dir, 'worker', 'catalog.db'), { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare("SELECT key FROM meta WHERE key <> 'built_at' ORDER BY key").pluck().all()).toEqual(['source', 'topics_latest_week', 'version']);
    expect(db.prepare('SELECT topic FROM topic_weeks INDEXED BY topic_weeks_by_topic WHERE topic = ? AND max_score >= 60').pluck().all('ERP')).toEqual(['erp']);
  } finally {
    db.close();
  }
  expect(readdirSync(join(dir, 'worker')).sort()).toEqual(['build.json', 'catalog.db', 'networks.mmdb']);
});

it('reports a bad network row from the worker as a source error and leaves no catalog behind', async () => {
  writeFixtureSources(join(dir, 'bad'));
  appendFileSync(join(dir, 'bad', 'networks.csv'), '198.51.100.0/24,company,424242,High,,,,\n');
  const failed = buildDataset({ in: join(dir, 'bad'), out: join(dir, 'bad-out'), networksInWorker: true });
  await expect(failed).rejects.toThrow(SourceError);
  await expect(failed).rejects.toThrow(/unknown company_id 424242/);
  expect(() => readFileSync(join(dir, 'bad-out', 'catalog.db'))).toThrow();
});

it('reports the first bad network row in file order, whether or not the company ids had arrived', async () => {
  writeFixtureSources(join(dir, 'order'));
  const rows = readFileSync(join(dir, 'order', 'networks.csv'), 'utf8')
    .trimEnd()
    .split('\n').length;
  appendFileSync(join(dir, 'order', 'networks.csv'), '198.51.100.0/24,company,424242,High,,,,\n198.51.100.0/33,isp,,High,,,,\n');
  for (const networksInWorker of [false, true]) {
    const failed = buildDataset({ in: join(dir, 'order'), out: join(dir, `order-out-${networksInWorker}`), networksInWorker });
    await expect(failed).rejects.toThrow(`row ${rows + 1}: unknown company_id 424242`);
  }
});

it('reports a bad people row from the worker ahead of a bad row of a later file, and leaves no catalog or temp file behind', async () => {
  writeSources(join(dir, 'people'));
  appendFileSync(join(dir, 'people', 'people.csv'), ',nobody@example.com,,,,,,,,,,\n');
  appendFileSync(join(dir, 'people', 'intent.csv'), '100001,devops,101,2026-10-01\n');
  const failed = buildDataset({ in: join(dir, 'people'), out: join(dir, 'people-out'), peopleInWorker: true });
  await expect(failed).rejects.toThrow(SourceError);
  await expect(failed).rejects.toThrow(/people\.csv: row \d+: people_id/);
  expect(readdirSync(join(dir, 'people-out')).filter((f) => f !== 'networks.mmdb')).toEqual([]);
});

describe('company ids that arrive while networks.csv is read (as in the worker)', () => {
  /** networks.csv of several 1 MiB batches, with an unknown company at row 3 and the known one at row 2. */
  const write = (name: string) => {
    const src = join(dir, name);
    mkdirSync(src, { recursive: true });
    const lines = ['network,kind,company_id,confidence,country,state,city', '10.0.0.0/24,company,900001,High,,,', '10.0.1.0/24,company,424242,High,,,'];
    for (let i = 0; i < 100_000; i++) lines.push(`${11 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}.0/24,isp,,High,,,`);
    writeFileSync(join(src, 'networks.csv'), lines.join('\n') + '\n');
    mkdirSync(join(dir, `${name}-out`), { recursive: true });
    return { src, out: join(dir, `${name}-out`), rows: lines.length - 1 };
  };

  it('checks rows as soon as the ids are there, without reading the rest of the file', async () => {
    const { src, out, rows } = write('early');
    let read = 0;
    const failed = writeNetworkIndex(src, out, Promise.resolve(new Set(['900001'])), (n) => void (read = n));
    await expect(failed).rejects.toThrow('row 3: unknown company_id 424242');
    expect(read).toBeLessThan(rows);
  });

  it('checks the rows read before the ids came at the next batch, still reporting the first bad row', async () => {
    const { src, out, rows } = write('late');
    let arrive!: (ids: ReadonlySet<string>) => void;
    const ids = new Promise<ReadonlySet<string>>((resolve) => (arrive = resolve));
    let read = 0;
    const failed = writeNetworkIndex(src, out, ids, (n) => {
      read = n;
      arrive(new Set(['900001']));
    });
    await expect(failed).rejects.toThrow('row 3: unknown company_id 424242');
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(rows);
  });
});
