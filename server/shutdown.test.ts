/**
 * Shutdown with a deadline, as operators run it: a real `serve` process gets SIGTERM while one client
 * holds an idle keep-alive connection, one is in the middle of a request that will finish, and one sends a
 * request that never finishes. The server stops accepting, answers the one that finishes, closes the
 * rest, and exits (code 0) once SVC_SHUTDOWN_TIMEOUT_MS is up instead of waiting for the stuck client.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { buildDataset } from '../data/build/build.ts';
import { freePort } from '../deploy/processes.ts';
import { TEST_ADMIN_TOKEN, writeFixtureSources } from './testing/test-server.ts';

const DEADLINE_MS = 1500;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
  writeFixtureSources(join(dir, 'sources'));
  await buildDataset({ in: join(dir, 'sources'), out: join(dir, 'data') });
});
const started: ChildProcess[] = [];
afterAll(() => {
  // A failed run must not leave a server behind (the primary's workers exit with it).
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `serve` on a free port; resolves with the process and its port once it accepts connections. */
async function serve(
  name: string,
  extraArgs: string[],
  deadlineMs: number,
): Promise<{ proc: ChildProcess; port: number; exited: Promise<{ code: number | null; at: number }> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'serve', '--port', String(port), '--host', '127.0.0.1', ...extraArgs], {
    env: {
      ...process.env,
      SVC_DATA: join(dir, 'data'),
      SVC_STATE: join(dir, `${name}.db`),
      SVC_JOBS_DIR: join(dir, `${name}-jobs`),
      SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SVC_SHUTDOWN_TIMEOUT_MS: String(deadlineMs),
      SVC_LOG: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(proc);
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => proc.once('exit', (code) => resolve({ code, at: Date.now() })));
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  proc.stdout!.resume();
  let gone = false;
  void exited.then(() => (gone = true));
  // With --workers the primary prints nothing machine-readable: wait until the port answers.
  for (;;) {
    if (gone) throw new Error(`serve exited before listening: ${err}`);
    const res = await fetch(`http://127.0.0.1:${port}/admin/api/customers`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }).catch(() => null);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, port, exited };
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** Collects what the server sends on a socket and when the socket ends. */
function watch(s: Socket) {
  let data = '';
  s.on('data', (d) => (data += d));
  s.on('error', () => {});
  const closed = new Promise<number>((resolve) => s.once('close', () => resolve(Date.now())));
  return { data: () => data, closed };
}

const auth = `Authorization: Bearer ${TEST_ADMIN_TOKEN}\r\n`;

/** `finishAfterMs`: how long after SIGTERM the in-flight request sends the rest of its body. */
async function runScenario(extraArgs: string[], name: string, deadlineMs: number, finishAfterMs: number) {
  const { proc, port, exited } = await serve(name, extraArgs, deadlineMs);

  // 1. An idle keep-alive connection (one answered request, then silence).
  const idle = await open(port);
  const idleSeen = watch(idle);
  idle.write(`GET /admin/api/customers HTTP/1.1\r\nHost: x\r\nUser-Agent: curl/8.5.0\r\n${auth}\r\n`);
  while (!idleSeen.data().includes('\r\n\r\n[')) await new Promise((r) => setTimeout(r, 20));
  expect(idleSeen.data()).toMatch(/^HTTP\/1\.1 200/);

  // 2. A request in flight that will finish: headers and half the body now, the rest after SIGTERM.
  const body = JSON.stringify({ id: 'late', name: 'Late Co' });
  const slow = await open(port);
  const slowSeen = watch(slow);
  slow.write(
    `POST /admin/api/customers HTTP/1.1\r\nHost: x\r\nUser-Agent: python-requests/2.31.0\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
  );

  // 3. A request that never finishes.
  const stuck = await open(port);
  const stuckSeen = watch(stuck);
  stuck.write(`POST /admin/api/customers HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":`);
  await new Promise((r) => setTimeout(r, 300));

  const signalledAt = Date.now();
  proc.kill('SIGTERM');

  // The idle keep-alive connection is closed without waiting for the deadline's end.
  expect(await idleSeen.closed).toBeGreaterThanOrEqual(signalledAt);

  // No new connections are accepted.
  await new Promise((r) => setTimeout(r, 300));
  await expect(open(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

  // The in-flight request is answered, and its connection (now idle) is closed after the answer.
  await new Promise((r) => setTimeout(r, Math.max(0, signalledAt + finishAfterMs - Date.now())));
  slow.write(body.slice(10));
  await slowSeen.closed;
  expect(slowSeen.data()).toMatch(/^HTTP\/1\.1 201/);

  // The stuck one does not keep the process alive past the deadline.
  const { code, at } = await exited;
  expect(code).toBe(0);
  await stuckSeen.closed;
  expect(stuckSeen.data()).not.toMatch(/^HTTP\/1\.1 201/);
  return at - signalledAt;
}

describe('shutdown on SIGTERM', { timeout: 120_000 }, () => {
  it('drains, closes keep-alive connections and exits after SVC_SHUTDOWN_TIMEOUT_MS despite a stuck client', async () => {
    const took = await runScenario([], 'single', DEADLINE_MS, 0);
    // Without the deadline the stuck request would hold the process for Node's requestTimeout (5 minutes).
    expect(took).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    expect(took).toBeLessThan(60_000);
  });

  it('does the same with serve --workers 2, waiting for in-flight requests as long as the configured time', async () => {
    // The in-flight request finishes 6 s after SIGTERM: within an 8 s deadline it must still be answered.
    const took = await runScenario(['--workers', '2'], 'workers', 8_000, 6_000);
    expect(took).toBeLessThan(60_000);
  });
});

describe('npm start', { timeout: 120_000 }, () => {
  it("one SIGTERM to npm stops the server too (the start script execs node, so npm's signal reaches it)", async () => {
    // `npm start` runs the script through `sh -c`; without `exec` the shell takes npm's SIGTERM and dies
    // while the server (its child) keeps running, orphaned, until a second signal reaches it directly.
    const port = await freePort();
    const npm = spawn('npm', ['run', 'start', '--ignore-scripts'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        SVC_DATA: join(dir, 'data'),
        SVC_STATE: join(dir, 'npm-start.db'),
        SVC_JOBS_DIR: join(dir, 'npm-start-jobs'),
        SVC_JOURNAL_DIR: join(dir, 'npm-start-journal'),
        SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        SVC_SHUTDOWN_TIMEOUT_MS: '1000',
        SVC_LOG: 'error',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      // Its own process group, so a failed run can kill an orphaned server with it (the signal under test goes to npm alone).
      detached: true,
    });
    onTestFinished(() => {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    let err = '';
    npm.stderr!.on('data', (d) => (err += d));
    const npmExited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    let ready = false;
    for (let i = 0; i < 600 && !ready && npm.exitCode === null; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      ready = res?.status === 200;
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready, `npm start did not serve (is dist/ built? npm run build): ${err}`).toBe(true);
    npm.kill('SIGTERM');
    await npmExited;
    // The server itself goes away: its port stops answering within the shutdown deadline.
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null)) === null;
      if (!gone) await new Promise((r) => setTimeout(r, 100));
    }
    expect(gone).toBe(true);
  });
});
