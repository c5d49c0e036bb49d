import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * Browser tests drive Debian's Chromium (Playwright cannot download browsers here) against the real
 * server, started fresh with demo data and an empty state file.
 */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" (or set SVC_CHROMIUM to its path)`);
}
const PORT = Number(process.env.SVC_E2E_PORT ?? 18080);
/** The server's data and state folder (several runs side by side each need their own, with their own port). */
const DIR = process.env.SVC_E2E_DIR ?? 'var/e2e';
export const BASE_URL = `http://localhost:${PORT}`;

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  reporter: [['list']],
  use: {
    baseURL: BASE_URL,
    // Headless Chromium announces itself as "HeadlessChrome", which bot filters (ours included) treat as
    // a bot; real visitors send an ordinary Chrome user agent.
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
        // Other page origins for the allowed-domain tests: *.test hosts resolve to this machine.
        '--host-resolver-rules=MAP *.test 127.0.0.1',
      ],
    },
  },
  webServer: {
    command: `rm -rf ${DIR} && node --import tsx server/cli/main.ts data build --in data/sample --out ${DIR}/data && node --import tsx server/cli/main.ts serve`,
    url: `${BASE_URL}/tag/v1/svc.js`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      PORT: String(PORT),
      SVC_DEMO: '1',
      SVC_DATA: `${DIR}/data`,
      SVC_STATE: `${DIR}/svc.db`,
      SVC_EVENTS_DIR: `${DIR}/events`,
      SVC_JOBS_DIR: `${DIR}/jobs`,
      SVC_LOG: 'error',
      SVC_ADMIN_TOKEN: 'e2e-admin-token-0123456789abcdef',
      // Webhook and Slack receivers in browser tests listen on this machine; deliveries are polled often.
      SVC_WEBHOOK_ALLOW_PRIVATE: '1',
      SVC_WEBHOOK_POLL_MS: '200',
    },
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
