/**
 * The CLI as users run it, called in-process (`runCli`): a real SQLite file, --json output parsed, exit
 * codes. A few cases start the real process (`npm run svc`, node with tsx) to prove the binary is the function.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCollected } from './run.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number;
  out: string;
  err: string;
}

/** `svc ARGS` in this process, its output collected; `cwd` and `env` (beside SVC_STATE) as a shell would give them. */
async function svcIn({ cwd, env = {} }: { cwd?: string; env?: Record<string, string> }, ...args: string[]): Promise<Result> {
  const { code, stdout, stderr } = await runCliCollected(args, { env: { ...process.env, SVC_STATE: join(dir, 'svc.db'), ...env }, cwd });
  return { code, out: stdout, err: stderr };
}
const svc = (...args: string[]) => svcIn({}, ...args);

/** The real process: `command` (node or npm) with its arguments, the same state file. */
async function spawned(command: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  try {
    const { stdout, stderr } = await run(command, args, { env: { ...process.env, SVC_STATE: join(dir, 'svc.db'), ...env }, timeout: 60_000 });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}
const svcProcess = (env: Record<string, string>, ...args: string[]) => spawned(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], env);

// The cases that start real processes take a second or more each on a loaded 2-core machine.
describe('svc CLI', { timeout: 120_000 }, () => {
  it('creates a customer, a token shown once, a tag with its snippet, and lists tokens without secrets', async () => {
    const customer = JSON.parse(
      (await svc('customer', 'create', '--id', 'globex', '--name', 'Globex', '--packages', 'platform,advanced', '--identification-credits', '10', '--json'))
        .out,
    );
    expect(customer).toMatchObject({ id: 'globex', packages: ['platform', 'advanced'], identification_credits: 10 });
    expect(customer.lead_scoring_token.token).toMatch(/^[A-Za-z0-9]{40}$/);

    const created = await svc(
      'token',
      'create',
      '--customer',
      'globex',
      '--group',
      'identification',
      '--name',
      'salesforce',
      '--integration',
      'salesforce',
      '--scores',
      '--json',
    );
    expect(created.code).toBe(0);
    const token = JSON.parse(created.out);
    expect(token).toMatchObject({
      id: expect.stringMatching(/^tok_/),
      token: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
      scores: true,
      integrations: ['salesforce'],
    });

    // The real process, on the file the function wrote: the same command, its JSON on stdout, exit 0.
    const list = await svcProcess({}, 'token', 'list', '--customer', 'globex', '--json');
    expect(list).toMatchObject({ code: 0, err: '' });
    expect(list.out).toBe((await svc('token', 'list', '--customer', 'globex', '--json')).out);
    expect(list.out).not.toContain(token.token);
    expect(list.out).not.toContain(customer.lead_scoring_token.token);
    expect(
      JSON.parse(list.out)
        .map((t: { api_group: string }) => t.api_group)
        .sort(),
    ).toEqual(['identification', 'lead-scoring']);
    expect(readFileSync(join(dir, 'svc.db')).toString('latin1')).not.toContain(token.token);

    const tag = JSON.parse(
      (await svc('tag', 'create', '--customer', 'globex', '--allowed-domain', 'www.globex.example', '--endpoint', 'https://svc.example', '--json')).out,
    );
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
    expect(help.err).toBe('');
    expect((await svc('bogus')).err).toMatch(/^svc: unknown command "bogus"\n\nsvc — /);
    const parseError = await svc('token', 'list', '--wat', '--json');
    expect(parseError.code).toBe(2);
    expect(JSON.parse(parseError.out)).toEqual({ status: 'error', message: expect.stringMatching(/--wat/) });
    expect(parseError.err).toMatch(/\nusage: token list \[--customer ID\]\n$/);
  });

  it('npm run svc -- --help: the real binary prints the same help as the function', async () => {
    const help = await spawned('npm', ['run', 'svc', '--', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain((await svc('--help')).out);
  });

  it('customer create refuses an existing id (exit 2, nothing changed); customer update changes only the options given', async () => {
    const created = await svc(
      'customer',
      'create',
      '--id',
      'initech',
      '--name',
      'Initech',
      '--packages',
      'platform',
      '--identification-credits',
      '500',
      '--contract-start',
      '2026-03-01',
      '--json',
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({ id: 'initech', identification_credits: 500, contract_start: '2026-03-01' });

    const again = await svc('customer', 'create', '--id', 'initech', '--name', 'Initech Again', '--packages', 'platform');
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/customer initech already exists/);
    const againJson = await svc('customer', 'create', '--id', 'initech', '--name', 'Initech Again', '--json');
    expect(JSON.parse(againJson.out)).toEqual({ status: 'error', message: expect.stringMatching(/already exists/) });

    const updated = JSON.parse((await svc('customer', 'update', 'initech', '--enrichment-credits', '40', '--json')).out);
    expect(updated).toMatchObject({
      name: 'Initech',
      packages: ['platform'],
      identification_credits: 500,
      enrichment_credits: 40,
      contract_start: '2026-03-01',
    });
    const renamed = await svc('customer', 'update', 'initech', '--name', 'Initech Corp');
    expect(renamed.code).toBe(0);
    expect(renamed.out).toMatch(/Initech Corp/);

    expect((await svc('customer', 'update', 'nobody', '--name', 'X')).code).toBe(2);
    expect((await svc('customer', 'update', 'initech')).code).toBe(2);
    const badUpdate = await svc('customer', 'update', 'initech', '--contract-start', '2026-02-30');
    expect(badUpdate.code).toBe(2);
    expect(badUpdate.err).toMatch(/contract_start/);
    expect((await svc('customer', 'create', '--id', 'baddate', '--name', 'Bad', '--contract-start', '2026-13-01')).code).toBe(2);
    const shown = JSON.parse((await svc('credits', 'show', '--customer', 'initech', '--json')).out);
    expect(shown.contract_start).toBe('2026-03-01');
    expect((await svc('customer', 'create', '--help')).out).toMatch(/customer update/);
  });

  it('tag create takes per-tag limits and refuses allowed domains that are not a host, naming the entry', async () => {
    const tag = JSON.parse(
      (
        await svc(
          'tag',
          'create',
          '--customer',
          'initech',
          '--allowed-domain',
          'www.initech.example',
          '--allowed-domain',
          'bücher.example',
          '--rate-limit',
          '20000',
          '--visitor-rate-limit',
          '600',
          '--json',
        )
      ).out,
    );
    expect(tag).toMatchObject({ rate_limit: 20_000, visitor_rate_limit: 600, allowed_domains: ['www.initech.example', 'xn--bcher-kva.example'] });
    const plain = JSON.parse((await svc('tag', 'create', '--customer', 'initech', '--allowed-domain', 'initech.example', '--json')).out);
    expect(plain).toMatchObject({ rate_limit: 6000, visitor_rate_limit: 300 });
    for (const bad of ['*.com', 'a.com, b.com', 'https://initech.example']) {
      const res = await svc('tag', 'create', '--customer', 'initech', '--allowed-domain', bad);
      expect(res.code, bad).toBe(2);
      expect(res.err).toContain(`"${bad}"`);
    }
    const token = await svc(
      'token',
      'create',
      '--customer',
      'initech',
      '--group',
      'identification',
      '--name',
      'site',
      '--allowed-domain',
      'initech.example:8080',
    );
    expect(token.code).toBe(2);
    expect(token.err).toContain('"initech.example:8080"');
    expect((await svc('tag', 'create', '--customer', 'initech', '--allowed-domain', 'initech.example', '--rate-limit', '0')).code).toBe(2);
  });

  it('customer import validates customers.json: real contract dates and allowed-domain syntax', async () => {
    const file = join(dir, 'customers.json');
    const customer = {
      id: 'fileco',
      name: 'File Co',
      packages: ['platform'],
      contract_start: '2026-04-01',
      tags: [{ tag_id: 'fileco-tag', allowed_domains: ['fileco.example'] }],
    };
    writeFileSync(file, JSON.stringify({ customers: [{ ...customer, contract_start: '2026-02-30' }] }));
    expect((await svc('customer', 'import', file)).code).not.toBe(0);
    writeFileSync(file, JSON.stringify({ customers: [{ ...customer, tags: [{ tag_id: 'fileco-tag', allowed_domains: ['*.example'] }] }] }));
    const badDomain = await svc('customer', 'import', file);
    expect(badDomain.code).not.toBe(0);
    expect(badDomain.err).toContain('"*.example"');
    writeFileSync(file, JSON.stringify({ customers: [customer] }));
    expect(JSON.parse((await svc('customer', 'import', file, '--json')).out).imported).toEqual(['fileco']);
  });

  it('takes relative paths (FILE, SVC_STATE) from the folder it is run in', async () => {
    const here = { cwd: dir, env: { SVC_STATE: 'here.db' } };
    writeFileSync(join(dir, 'here.json'), JSON.stringify({ customers: [{ id: 'hereco', name: 'Here Co', packages: ['platform'] }] }));
    expect(JSON.parse((await svcIn(here, 'customer', 'import', 'here.json', '--json')).out).imported).toEqual(['hereco']);
    expect(existsSync(join(dir, 'here.db'))).toBe(true);
    const exported = await svcIn(here, 'state', 'export', 'here.jsonl', '--json');
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.out)).toMatchObject({ file: 'here.jsonl', from: `SQLite ${join(dir, 'here.db')}` });
    expect(readFileSync(join(dir, 'here.jsonl'), 'utf8')).toContain('"hereco"');
  });

  it('serve refuses to start with a short admin token, with a clear message and no stack trace', async () => {
    const res = await svcProcess({ SVC_ADMIN_TOKEN: 'admin-secret', PORT: '0' }, 'serve');
    expect(res.code).toBe(2);
    expect(res.err).toMatch(/SVC_ADMIN_TOKEN must be at least 20 characters/);
    expect(res.err).not.toMatch(/\n\s+at /);
  });
});
