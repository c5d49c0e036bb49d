/** Rebuilding the data under a running server: no failed request, and answers switch to the new data. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
let token: string;
beforeAll(async () => {
  // The loops below send as fast as the server answers (thousands of charged Matches): credits are not the point.
  srv = await startTestServer({ customers: [{ ...TEST_CUSTOMER, identification_credits: 10_000_000 }] });
  token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'load', rate_limit: 1_000_000 })).secret;
});
afterAll(() => srv?.close());

const ask = async () => {
  const res = await fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, {
    headers: { authorization: `Token ${token}`, 'user-agent': 'Mozilla/5.0 Chrome/131.0' },
  });
  return { status: res.status, name: res.status === 200 ? ((await res.json()) as { company: { name: string } }).company.name : '' };
};

it('keeps answering during a rebuild and switches to the new data', async () => {
  const results: { status: number; name: string }[] = [];
  let stop = false;
  const loops = Array.from({ length: 8 }, async () => {
    while (!stop) results.push(await ask());
  });
  await new Promise((r) => setTimeout(r, 300));
  await srv.rebuild([{ ...ACME_SOFTWARE, name: 'Northwind Analytics Renamed' }, BLUEPEAK_MANUFACTURING]);
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && (await ask()).name !== 'Northwind Analytics Renamed') await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));
  stop = true;
  await Promise.all(loops);

  expect(results.length).toBeGreaterThan(100);
  expect(results.filter((r) => r.status !== 200)).toEqual([]);
  const names = new Set(results.map((r) => r.name));
  expect(names).toEqual(new Set(['Northwind Analytics', 'Northwind Analytics Renamed']));
  expect(results.at(-1)!.name).toBe('Northwind Analytics Renamed');
  // Once switched, never back: every answer after the first new one is new.
  const first = results.findIndex((r) => r.name.endsWith('Renamed'));
  expect(results.slice(first).every((r) => r.name.endsWith('Renamed'))).toBe(true);
});

it('reloads on SIGHUP and keeps the old data when the new files are broken', async () => {
  const before = srv.dataset.current;
  process.emit('SIGHUP', 'SIGHUP');
  expect(srv.dataset.current).not.toBe(before);
  const broken = new (await import('../data/dataset.ts')).Dataset(srv.dataset.dir);
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const snapshot = broken.current;
  writeFileSync(join(srv.dataset.dir, 'networks.mmdb'), 'not an mmdb file');
  expect(broken.reload()).toBe(false);
  expect(broken.current).toBe(snapshot);
  broken.close();
});

it('keeps watching when the data folder is deleted and created again', async () => {
  const { rmSync } = await import('node:fs');
  rmSync(srv.dataset.dir, { recursive: true, force: true });
  // Still serving the data it has open while the folder is gone.
  expect((await ask()).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1_500));
  await srv.rebuild([{ ...ACME_SOFTWARE, name: 'Northwind After Delete' }, BLUEPEAK_MANUFACTURING]);
  const deadline = Date.now() + 20_000;
  let name = '';
  while (Date.now() < deadline && (name = (await ask()).name) !== 'Northwind After Delete') await new Promise((r) => setTimeout(r, 100));
  expect(name).toBe('Northwind After Delete');

  // And the new folder is watched like the first one: a second build there is picked up too.
  await srv.rebuild([{ ...ACME_SOFTWARE, name: 'Northwind Second Build' }, BLUEPEAK_MANUFACTURING]);
  const again = Date.now() + 20_000;
  while (Date.now() < again && (name = (await ask()).name) !== 'Northwind Second Build') await new Promise((r) => setTimeout(r, 100));
  expect(name).toBe('Northwind Second Build');
}, 60_000);
