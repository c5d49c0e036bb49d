/** The CLI as users run it: a real process, a real SQLite file, --json output parsed. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function svc(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], {
      env: { ...process.env, SVC_STATE: join(dir, 'svc.db') },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

// Each case starts several real CLI processes (tsx, a second or more each on a loaded 2-core machine).
describe('svc CLI', { timeout: 180_000 }, () => {
  it('creates a customer, a token shown once, a tag with its snippet, and lists tokens without secrets', async () => {
    const customer = JSON.parse((await svc('customer', 'create', '--id', 'globex', '--name', 'Globex', '--packages', 'platform,advanced', '--identification-credits', '10', '--json')).out);
    expect(customer).toMatchObject({ id: 'globex', packages: ['platform', 'advanced'], identification_credits: 10 });
    expect(customer.lead_scoring_token.token).toMatch(/^[A-Za-z0-9]{40}$/);

    const created = await svc('token', 'create', '--customer', 'globex', '--group', 'identification', '--name', 'salesforce', '--integration', 'salesforce', '--scores', '--json');
    expect(created.code).toBe(0);
    const token = JSON.parse(created.out);
    expect(token).toMatchObject({ id: expect.stringMatching(/^tok_/), token: expect.stringMatching(/^[A-Za-z0-9]{40}$/), scores: true, integrations: ['salesforce'] });

    const list = await svc('token', 'list', '--customer', 'globex', '--json');
    expect(list.out).not.toContain(token.token);
    expect(list.out).not.toContain(customer.lead_scoring_token.token);
    expect(JSON.parse(list.out).map((t: { api_group: string }) => t.api_group).sort()).toEqual(['identification', 'lead-scoring']);
    expect(readFileSync(join(dir, 'svc.db')).toString('latin1')).not.toContain(token.token);

    const tag = JSON.parse((await svc('tag', 'create', '--customer', 'globex', '--allowed-domain', 'www.globex.example', '--endpoint', 'https://svc.example', '--json')).out);
    expect(tag.tagId).toMatch(/^tag_/);
    expect(tag.snippet).toContain(tag.tagId);
    expect(tag.snippet).toContain(`https://svc.example/tag/v1/${tag.tagId}.js`);

    const rotated = JSON.parse((await svc('token', 'rotate', token.id, '--json')).out);
    expect(rotated.token).not.toBe(token.token);
    expect(JSON.parse((await svc('token', 'deactivate', token.id, '--json')).out).status).toBe('inactive');
    expect(JSON.parse((await svc('token', 'delete', token.id, '--json')).out)).toEqual({ id: token.id, deleted: true });

    const credits = JSON.parse((await svc('credits', 'show', '--customer', 'globex', '--json')).out);
    expect(credits.balances[0]).toMatchObject({ pool: 'identification', quota: 10, used: 0, remaining: 10 });
  });

  it('explains mistakes with exit code 2 and, with --json, one JSON error value', async () => {
    const noGroup = await svc('token', 'create', '--customer', 'globex', '--group', 'nope', '--name', 'x', '--json');
    expect(noGroup.code).toBe(2);
    expect(JSON.parse(noGroup.out)).toEqual({ status: 'error', message: expect.stringMatching(/--group must be one of/) });
    const notCovered = await svc('token', 'create', '--customer', 'globex', '--group', 'people-search', '--name', 'x');
    expect(notCovered.code).toBe(2);
    expect(notCovered.err).toMatch(/no package that covers the people-search/);
    expect((await svc('bogus')).code).toBe(2);
    expect((await svc('token', 'create', '--wat')).code).toBe(2);
    const help = await svc('--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('data generate --out DIR');
  });
});
