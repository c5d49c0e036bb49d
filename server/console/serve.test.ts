import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, mountConsole } from './serve.ts';

let dist: string;
let server: Server;
let url: string;

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'console-serve-'));
  await mkdir(join(dist, 'console'));
  await writeFile(join(dist, 'console/index.html'), '<!doctype html><title>console</title>');
  await writeFile(join(dist, 'console/app.js'), 'void 0;');
  const app = express();
  expect(mountConsole(app, dist)).toBe(true);
  app.use((_req, res) => void res.status(404).json({ status: 'error', message: 'no such route' }));
  server = app.listen(0);
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await rm(dist, { recursive: true, force: true });
});

describe('mountConsole', () => {
  it('serves index.html at /console/ uncached, under the strict CSP', async () => {
    const res = await fetch(`${url}/console/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>console</title>');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toBe("default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${url}/console/index.html`)).headers.get('cache-control')).toBe('no-store');
  });

  it('redirects /console to /console/ and serves the bundle (revalidated) with the CSP', async () => {
    const redirect = await fetch(`${url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/console/');
    const js = await fetch(`${url}/console/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toBe('no-cache');
    expect(js.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  });

  it('leaves unknown files to the next handler, still under the CSP', async () => {
    const res = await fetch(`${url}/console/nope.js`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  });

  it('mounts nothing when the console was not built', () => {
    expect(mountConsole(express(), join(dist, 'missing'))).toBe(false);
  });
});
