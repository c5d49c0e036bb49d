/**
 * Every example an integrator copies runs against `npm start`'s data: the sample sources (data/sample)
 * built with `data build`, a real server in demo mode with the customers of data/sample/customers.json
 * seeded, real HTTP.
 *
 * - README.md and docs/*.md, in that order (README first, then the pages by name, all against one server):
 *   every code block's `curl` commands (and the `npm run svc` commands they depend on, run as
 *   the CLI against the server's state file) are parsed and sent as curl would send them; each answers
 *   the status its shown answer implies (200; 201 for an admin create; the code's status for an error
 *   answer) and every `"key":value` the shown answer carries (scalars and lists of scalars; `…` in a string
 *   stands for anything) is in the real answer. `$TOKEN` is a demo-customer token of the route's API group
 *   (named `crm`, segment names on, as the README says), `$ADMIN` the admin token, `<token>` the `token`
 *   printed by the block's `token create --json`.
 * - /docs: every call of sample-examples.ts (the answers in examples.json) is made again and answers the
 *   same (fields that move with time or with earlier calls masked), and the document's request examples
 *   are exactly what those calls send.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../core/error-codes.ts';
import { buildDataset } from '../../data/build/build.ts';
import { runCliCollected } from '../cli/run.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../observability/logger.ts';
import { type RunningServer, startServer } from '../serve.ts';
import { openApiDocument } from './document.ts';
import examples from './examples.json' with { type: 'json' };
import { callExample, createExampleTokens, type ExampleCall, type ExampleGroup, exampleCalls } from './sample-examples.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN = 'readme-examples-admin-token-0123456789';

/** Blocks of README.md and docs/ that are not run, each with why: keep this list short. Matched by a piece of the block's text. */
const NOT_RUN: { block: string; reason: string }[] = [
  { block: 'data import --out var/sources', reason: 'needs licensed MaxMind and vendor files, and serves another data folder than npm start' },
  {
    block: 'crm connect hubspot',
    reason: 'needs a HubSpot or Salesforce account: server/cli/crm-commands.test.ts runs these commands against the providers’ stand-ins',
  },
];

/** The API group of the `$TOKEN` a route needs (README: "a token of the route's API group"; /v3/usage: the identification token). */
const GROUP_OF_PATH: Record<string, ExampleGroup> = {
  '/v3/company/details': 'identification',
  '/v3/usage': 'identification',
  '/v1/enrichment/company': 'company-firmographics',
  '/v3/batch/enrichment': 'company-firmographics',
  '/v2/people/enrichment': 'company-firmographics',
  '/v2/people/full': 'lead-scoring-firmographics',
  '/v2/people/score': 'lead-scoring',
  '/v2/enrichment/people': 'people-enrichment',
  '/v2/search/people': 'people-search',
};

// ---------------------------------------------------------------------------------------------------------
// README parsing

interface Example {
  /** The page it is on (README.md, docs/…). */
  file: string;
  /** 1-based line of the command in that page. */
  line: number;
  kind: 'curl' | 'svc';
  /** The command's words (shell quoting removed; `$VAR` and `<token>` kept for the runner). */
  words: string[];
  /** The answer shown under the command ('' when none). */
  answer: string;
  /** The block's first line: examples of one block share its `<token>`. */
  block: number;
}

/** Code blocks of a Markdown text: fenced (```) and indented (4 spaces after a blank line), with their first line. */
function codeBlocks(md: string): { line: number; lines: string[] }[] {
  const lines = md.split('\n');
  const blocks: { line: number; lines: string[] }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i]!)) {
      const start = i + 1;
      while (++i < lines.length && !/^\s*```/.test(lines[i]!));
      blocks.push({ line: start + 1, lines: lines.slice(start, i) });
    } else if (/^ {4,}\S/.test(lines[i]!) && (i === 0 || lines[i - 1]!.trim() === '')) {
      const start = i;
      while (i + 1 < lines.length && /^ {4,}\S/.test(lines[i + 1]!)) i++;
      blocks.push({ line: start + 1, lines: lines.slice(start, i + 1) });
    }
  }
  return blocks;
}

/** Splits a command line into words as a POSIX shell does for the forms the README uses: '…', "…", \-escapes. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${command}`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let s = '';
      for (i++; i < command.length && command[i] !== '"'; i++) s += command[i] === '\\' && /["\\$`]/.test(command[i + 1] ?? '') ? command[++i] : command[i];
      if (i >= command.length) throw new Error(`unterminated " in: ${command}`);
      word = (word ?? '') + s;
    } else if (c === '\\') {
      word = (word ?? '') + (command[++i] ?? '');
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

const COMMAND = /^\s*(curl|npm run svc)\s/;

/** The pages whose examples run, in the order they run: README.md, then docs/ by name. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** The curl and `npm run svc` examples of a page, with the answer shown under each, blocks in NOT_RUN left out. */
function readmeExamples(file: string, md: string): { examples: Example[]; skipped: string[] } {
  const examples: Example[] = [];
  const skipped: string[] = [];
  for (const block of codeBlocks(md)) {
    if (!block.lines.some((l) => COMMAND.test(l))) continue;
    const text = block.lines.join('\n');
    const excluded = NOT_RUN.find((n) => text.includes(n.block));
    if (excluded) {
      skipped.push(excluded.block);
      continue;
    }
    for (let i = 0; i < block.lines.length; i++) {
      if (!COMMAND.test(block.lines[i]!)) continue;
      const line = block.line + i;
      let command = block.lines[i]!.trim();
      while (command.endsWith('\\') && i + 1 < block.lines.length) command = command.slice(0, -1) + ' ' + block.lines[++i]!.trim();
      // A trailing shell comment (`cmd   # what it does`) is not part of the command.
      command = command.replace(/\s+#\s.*$/, '');
      const answer: string[] = [];
      while (i + 1 < block.lines.length && !COMMAND.test(block.lines[i + 1]!)) answer.push(block.lines[++i]!);
      const words = shellWords(command);
      const kind = words[0] === 'curl' ? 'curl' : 'svc';
      examples.push({
        file,
        line,
        kind,
        words: kind === 'curl' ? words.slice(1) : words.slice(words.indexOf('--') + 1),
        answer: answer.join('\n').trim(),
        block: block.line,
      });
    }
  }
  return { examples, skipped };
}

interface CurlRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** The request curl sends for these arguments (the forms the README uses: -s, -X, -H, -d). */
function curlRequest(args: string[]): CurlRequest {
  let method: string | undefined;
  let url: URL | undefined;
  const headers: Record<string, string> = { 'user-agent': 'curl/8.5.0', accept: '*/*' };
  const data: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-s' || a === '--silent') continue;
    else if (a === '-X' || a === '--request') method = args[++i];
    else if (a === '-H' || a === '--header') {
      const h = args[++i]!;
      const colon = h.indexOf(':');
      headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
    } else if (a === '-d' || a === '--data') data.push(args[++i]!);
    else if (a.startsWith('-')) throw new Error(`curl option ${a} is not understood by this test: teach curlRequest()`);
    else url = new URL(/^https?:\/\//.test(a) ? a : `http://${a}`);
  }
  if (!url) throw new Error(`no URL in: curl ${args.join(' ')}`);
  if (data.length > 0) headers['content-type'] ??= 'application/x-www-form-urlencoded';
  return { method: method ?? (data.length > 0 ? 'POST' : 'GET'), url, headers, ...(data.length > 0 ? { body: data.join('&') } : {}) };
}

/** The status an example's shown answer implies. */
function impliedStatus(req: CurlRequest, answer: string): number {
  if (/"status"\s*:\s*"error"/.test(answer)) {
    const code = /"code"\s*:\s*"(\w+)"/.exec(answer)?.[1];
    // Without a code: the lead routes' 404 with data.
    return code ? ERROR_STATUS[code as ErrorCode] : 404;
  }
  // A create answers 201; a token action and a preview (nothing saved) 200.
  if (req.method === 'POST' && req.url.pathname.startsWith('/admin/api/') && !/\/(deactivate|activate|rotate|preview)$/.test(req.url.pathname)) return 201;
  return 200;
}

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const SCALAR = String.raw`${STRING}|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null`;
const PAIR = new RegExp(String.raw`(${STRING})\s*:\s*(${SCALAR}|\[\s*(?:(?:${SCALAR})\s*(?:,\s*(?:${SCALAR})\s*)*)?\])`, 'g');

/** The `"key":value` pairs of a shown answer whose value is a scalar or a list of scalars. */
function shownPairs(answer: string): [string, unknown][] {
  return [...answer.matchAll(PAIR)].map((m) => [JSON.parse(m[1]!) as string, JSON.parse(m[2]!) as unknown]);
}

/** Whether a real value is what the README shows: equal, or for a string with `…`, anything in its place. */
function shows(shown: unknown, real: unknown): boolean {
  if (typeof shown === 'string' && shown.includes('…')) {
    const pattern = shown
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*');
    return typeof real === 'string' && new RegExp(`^${pattern}$`).test(real);
  }
  return JSON.stringify(shown) === JSON.stringify(real);
}

/** Every (key, value) of every object in a JSON value. */
function realPairs(value: unknown, out: [string, unknown][] = []): [string, unknown][] {
  if (Array.isArray(value)) for (const v of value) realPairs(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push([k, v]);
      realPairs(v, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------

const pageExamples = PAGES.map((file) => readmeExamples(file, readFileSync(join(ROOT, file), 'utf8')));
const README_EXAMPLES = pageExamples.flatMap((p) => p.examples);
const skipped = pageExamples.flatMap((p) => p.skipped);

let srv: RunningServer;
let dir: string;
const readmeTokens = {} as Record<ExampleGroup, string>;
/** `<token>` of each block (by page and line): the `token` its `token create --json` printed. */
const blockTokens = new Map<string, string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
  // What `npm start` serves: the sample sources built by `data build`, demo mode seeding data/sample/customers.json.
  await buildDataset({ in: join(ROOT, 'data/sample'), out: join(dir, 'data') });
  const config = loadConfig(
    {},
    {
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_DATA: join(dir, 'data'),
      SVC_STATE: join(dir, 'svc.db'),
      SVC_EVENTS_DIR: join(dir, 'events'),
      SVC_ADMIN_TOKEN: ADMIN,
      SVC_LOG: 'silent',
      SVC_DEMO: '1',
      SVC_SEED: join(ROOT, 'data/sample/customers.json'),
      SVC_DIST: join(ROOT, 'dist'),
      // The README registers a webhook at hooks.example.com: nothing here should try to deliver to it.
      SVC_WEBHOOK_POLL_MS: '3600000',
    },
  );
  srv = await startServer(config, createLogger('silent'));
  for (const g of Object.values(GROUP_OF_PATH)) {
    readmeTokens[g] ??= (await srv.store.createToken({ customer_id: 'demo', api_group: g, name: 'crm', segment_names: true })).secret;
  }
});

afterAll(async () => {
  await srv?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `npm run svc --silent -- <args>` against the server's state (what the README's CLI lines do next to `npm start`), in-process. */
async function runCli(args: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_STATE: join(dir, 'svc.db'), SVC_DATA: join(dir, 'data'), SVC_LOG: 'silent' };
  delete env.SVC_REDIS_URL;
  const { code, stdout, stderr } = await runCliCollected(args, { cwd: ROOT, env });
  if (code !== 0) throw new Error(`svc ${args.join(' ')} exited with ${code}: ${stderr}`);
  return stdout;
}

describe("README.md and docs/ examples run against npm start's data", () => {
  it('finds the examples (and every NOT_RUN entry still names a block)', () => {
    expect(README_EXAMPLES.filter((e) => e.kind === 'curl').length).toBeGreaterThanOrEqual(7);
    // The guides are where most examples live: a page the runner stopped reading would drop them silently.
    expect([...new Set(README_EXAMPLES.map((e) => e.file))]).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/webhooks.md']));
    expect(skipped.sort()).toEqual(NOT_RUN.map((n) => n.block).sort());
  });

  for (const ex of README_EXAMPLES) {
    const title = `${ex.file}:${ex.line} ${ex.kind === 'curl' ? 'curl' : 'svc'} ${ex.words.join(' ').slice(0, 90)}`;
    it(title, async () => {
      if (ex.kind === 'svc') {
        const stdout = await runCli(ex.words);
        if (ex.words.includes('--json')) {
          const printed = JSON.parse(stdout) as { token?: string };
          if (typeof printed.token === 'string') blockTokens.set(`${ex.file}:${ex.block}`, printed.token);
        }
        return;
      }
      const req = curlRequest(ex.words);
      expect(req.url.host, 'the examples call npm start on localhost:8080').toBe('localhost:8080');
      expect(decodeURIComponent(req.url.pathname + req.url.search), 'a placeholder where a sample value belongs').not.toMatch(/<[^>]*>/);
      const group = GROUP_OF_PATH[req.url.pathname];
      const secrets: Record<string, string | undefined> = {
        $TOKEN: group && readmeTokens[group],
        $ADMIN: ADMIN,
        '<token>': blockTokens.get(`${ex.file}:${ex.block}`),
      };
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        headers[k] = v.replace(/\$TOKEN|\$ADMIN|<token>/g, (name) => {
          const secret = secrets[name];
          if (!secret) throw new Error(`${name} has no value for ${req.url.pathname}`);
          return secret;
        });
      }
      const res = await fetch(new URL(req.url.pathname + req.url.search, srv.url), {
        method: req.method,
        headers,
        ...(req.body !== undefined ? { body: req.body } : {}),
      });
      const text = await res.text();
      expect(res.status, `${req.method} ${req.url.pathname}${req.url.search} answered ${res.status}: ${text.slice(0, 400)}`).toBe(
        impliedStatus(req, ex.answer),
      );
      if (!ex.answer) return;
      const real = realPairs(JSON.parse(text));
      const pairs = shownPairs(ex.answer);
      expect(pairs.length, `no "key":value found in the answer shown at ${ex.file}:${ex.line}`).toBeGreaterThan(0);
      const missing = pairs.filter(([k, v]) => !real.some(([rk, rv]) => rk === k && shows(v, rv))).map(([k, v]) => `"${k}":${JSON.stringify(v)}`);
      expect(missing, `shown at ${ex.file}:${ex.line} but not in the real answer ${text.slice(0, 1500)}`).toEqual([]);
    });
  }
});

/** Fields of an example answer that move with the clock (dates, contract year, intent decay, rate windows) or with the calls made before it (balances). */
const VARIES =
  /(_at|^month|^period(_start|_end)?|^used|^remaining|^charges|^partner_charges|^company_intent_score|^company_buying_stage|^contact_intent_score|^contact_grade|^reset_seconds)$/;

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VARIES.test(k) ? '(varies)' : stable(v)]));
  return value;
}

describe("/docs examples (examples.json) run against npm start's data", () => {
  type Json = Record<string, any>;
  const doc = openApiDocument() as Json;
  const calls = exampleCalls(examples.request) as Record<string, ExampleCall>;
  let tokens: Record<ExampleGroup, string>;

  it('shows as request examples exactly what the calls send', () => {
    const identification = (doc.paths['/v3/company/details'].get.parameters as Json[]).find((p) => p.name === 'ip');
    expect(identification?.example).toBe(examples.request.ip);
    let bodies = 0;
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      const example = item.post?.requestBody?.content?.['application/x-www-form-urlencoded']?.example;
      if (!example) continue;
      const call = Object.values(calls).find((c) => c.method === 'POST' && c.path === path && c.status === 200);
      expect(call, `no example call answers the request example of POST ${path}`).toBeDefined();
      expect(example, `POST ${path}`).toEqual(call!.body);
      bodies++;
    }
    expect(bodies).toBe(6);
    expect(examples.identification.company.companyId).toBe(examples.request.company_id);
    expect(examples.tags.map((t) => t.tag_id)).toContain(examples.request.tag);
  });

  for (const [name, call] of Object.entries(calls)) {
    it(`${name}: ${call.method} ${call.path}${call.body ? ' ' + new URLSearchParams(call.body).toString() : ''}`, async () => {
      tokens ??= await createExampleTokens(srv.store);
      const { status, body } = await callExample(srv.url, call, { tokens, admin: ADMIN });
      expect(status).toBe(call.status);
      expect(stable(body), `examples.json "${name}" is not what the server answers: regenerate with npx tsx server/openapi/sample-examples.ts`).toEqual(
        stable((examples as Json)[name]),
      );
    });
  }
});
