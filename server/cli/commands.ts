/** The CLI's commands: each parses its options, calls the module that does the work, and prints. */
import { resolve } from 'node:path';
import type { TokenRecord } from '../../core/access-records.ts';
import { CustomerPatch, CustomerSeed, GRANTS, Grant, PACKAGES, TOKEN_GROUPS, TokenGroup } from '../../core/customer-records.ts';
import { DEFAULT_TOKEN_LIMIT, TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../../core/vocabulary.ts';
import { readCustomersFile } from '../../data/sources/read.ts';
import { withAdvice } from '../auth/rotation.ts';
import { serverBaseUrl } from '../config.ts';
import { creditReport } from '../credits/report.ts';
import { createCustomer, type Provisioned, provisionCustomer, updateCustomer } from '../customers/provision.ts';
import { auditedToken, changed } from '../users/audit-fields.ts';
import { ALERT_COMMANDS } from './alert-commands.ts';
import { CRM_COMMANDS } from './crm-commands.ts';
import { DIGEST_COMMANDS } from './digest-commands.ts';
import { ENRICH_COMMANDS } from './enrich-command.ts';
import { type CommandContext, emit, intOption, listOption, pathIn, requireOption, UsageError } from './output.ts';
import { STATE_COMMANDS } from './state-commands.ts';
import { USER_COMMANDS } from './user-commands.ts';
import { auditAsOperator, configFor, withStore } from './with-store.ts';

type Options = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

export interface Command {
  usage: string;
  summary: string;
  help?: string;
  options: Options;
  /** Resolves to the exit code, or to nothing for 0 (run.ts: `?? 0`). Writes and reads only through `ctx.io`. */
  // `undefined` instead of `void` would reject commands' bare `return;` and state-commands.ts's Promise<void>.
  // biome-ignore lint/suspicious/noConfusingVoidType: `void` is a return value here: "no exit code".
  run(values: Record<string, unknown>, positionals: string[], ctx: CommandContext): Promise<number | void>;
}

/** The progress display of a long data job: on the CLI's stderr when both its streams are a terminal. */
async function progressOf({ json, io }: CommandContext) {
  const { SILENT, terminalProgress } = await import('../../data/progress.ts');
  return io.stdout.isTTY && io.stderr.isTTY ? terminalProgress(json, io.stderr as NodeJS.WriteStream) : SILENT;
}

/** Options shared by `customer create` and `customer update`. */
const CUSTOMER_OPTIONS: Options = {
  name: { type: 'string' },
  packages: { type: 'string', multiple: true },
  'identification-credits': { type: 'string' },
  'enrichment-credits': { type: 'string' },
  'contract-start': { type: 'string' },
  grant: { type: 'string', multiple: true },
};

/** `--grant G` (create, update: added to the customer's grants) and `--revoke G` (update: removed). */
function grantsOption(v: unknown, flag: string): Grant[] {
  return listOption(v).map((g) => {
    const parsed = Grant.safeParse(g);
    if (!parsed.success) throw new UsageError(`--${flag} must be one of ${GRANTS.join(', ')}`);
    return parsed.data;
  });
}

/** The customer fields given on the command line (absent options stay absent). */
function customerFields(v: Record<string, unknown>) {
  return {
    name: v.name as string | undefined,
    packages: v.packages === undefined ? undefined : listOption(v.packages),
    identification_credits: intOption(v, 'identification-credits'),
    enrichment_credits: intOption(v, 'enrichment-credits'),
    contract_start: v['contract-start'] as string | undefined,
  };
}

function emitCustomer(ctx: CommandContext, verb: string, { customer, leadScoringToken }: Provisioned): void {
  emit(
    ctx,
    { ...customer, lead_scoring_token: leadScoringToken ?? null },
    () =>
      `customer ${customer.id} (${customer.name}) ${verb}: ${customer.packages.join(', ') || 'no packages'}; credits ${customer.identification_credits} identification, ${customer.enrichment_credits} enrichment; contract from ${customer.contract_start}${customer.grants.length > 0 ? `; granted ${customer.grants.join(', ')}` : ''}` +
      (leadScoringToken ? `\n\nLead Scoring token ${leadScoringToken.id} generated (shown once): ${leadScoringToken.token}` : ''),
  );
}

/** Allowed domains as given, one per --allowed-domain: a comma-separated list is an invalid entry, not a list. */
function domainsOption(v: unknown): string[] {
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
}

function tokenLine(t: TokenRecord): string {
  const flags = [
    t.status,
    t.scores && 'scores',
    t.segment_names && 'segment-names',
    t.intent_topics && 'intent-topics',
    t.allowed_domains.length && `domains=${t.allowed_domains.join(',')}`,
  ]
    .filter(Boolean)
    .join(' ');
  return `${t.id}  ${t.customer_id}  ${t.api_group.padEnd(26)} ${t.prefix}…  ${t.name}  (${flags}, ${t.rate_limit}/min)`;
}

export const COMMANDS: Record<string, Command> = {
  serve: {
    usage: 'serve [--port N] [--host H] [--data DIR] [--state FILE] [--demo] [--workers N]',
    summary: 'start the HTTP server (API, tag, demo site); --workers N runs N processes',
    help: '\nSIGTERM/SIGINT: stop accepting, finish in-flight requests, exit within SVC_SHUTDOWN_TIMEOUT_MS (default 10000).\n',
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      state: { type: 'string' },
      demo: { type: 'boolean' },
      workers: { type: 'string' },
    },
    async run(v, _p, ctx) {
      const config = configFor(ctx.io, {
        PORT: v.port as string | undefined,
        HOST: v.host as string | undefined,
        SVC_DATA: v.data as string | undefined,
        SVC_STATE: v.state as string | undefined,
        SVC_DEMO: v.demo ? '1' : undefined,
      });
      const workers = intOption(v, 'workers', 1)!;
      if (workers > 1) {
        const { serveCluster } = await import('../cluster.ts');
        await serveCluster(config, workers);
        await new Promise(() => {});
      }
      const { exitOnSignals, startServer } = await import('../serve.ts');
      const { createLogger } = await import('../observability/logger.ts');
      const log = createLogger(config.SVC_LOG);
      const running = await startServer(config, log);
      if (ctx.json) emit(ctx, { url: running.url, port: running.port }, () => '');
      exitOnSignals(() => running.close(), config.SVC_SHUTDOWN_TIMEOUT_MS, log);
      await new Promise(() => {});
    },
  },

  'data generate': {
    usage: 'data generate --out DIR [--companies N] [--seed S]',
    summary: 'write deterministic sample sources (same seed → byte-identical files)',
    options: { out: { type: 'string' }, companies: { type: 'string' }, seed: { type: 'string' } },
    async run(v, _p, ctx) {
      const { generateSources } = await import('../../data/generate/generate.ts');
      const summary = await generateSources({
        out: pathIn(ctx.io, requireOption(v, 'out')),
        companies: intOption(v, 'companies', 2000)!,
        seed: (v.seed as string | undefined) ?? '1',
        progress: await progressOf(ctx),
      });
      emit(ctx, summary, () => `generated ${JSON.stringify(summary)}`);
    },
  },

  'data import': {
    usage:
      'data import --out DIR [--geoip2-enterprise FILE] [--geoip2-isp FILE] [--geoip2-domain FILE] [--asn-mmdb FILE] [--asn-csv FILE] [--city FILE] [--anonymous-ip FILE] [--firmographics FILE] [--mapping FILE] [--intent-topics FILE]',
    summary:
      'turn licensed IP-intelligence files (MaxMind GeoIP2/GeoLite2, ASN range CSVs, a firmographics CSV) into a sources folder for data build; prints the coverage report',
    help: `
At least one network source is required. Overlaps: the more specific network wins, then Enterprise > ISP >
ASN mmdb > ASN CSV. Writes companies.csv, networks.csv and import-report.json into DIR (built in a temp
folder beside it and renamed into place: a failed import leaves DIR as it was).
Inputs: CSV in UTF-8 or UTF-16 with a BOM (Latin-1 is refused: convert it, e.g. iconv -f latin1 -t utf-8),
fields at most 64 KiB; .mmdb files whose search tree or pointers are broken are refused (exit 2).
IPv4 and IPv6 networks are both kept, under the same rules.
--anonymous-ip FILE: GeoIP2 Anonymous IP; its networks (VPN, Tor exit, public or residential proxy, hosting)
answer Non-actionable Match with the reason in the company's privacy field.
--mapping FILE: JSON {"user_type": {"<user_type>": "<kind>"|null}, "firmographics": {"columns": {"<our field>": "<their column>"}}}.
Field mappings and the user_type table: docs/data.md, "Bring your own data".
--intent-topics FILE: a third-party intent export (Company Surge style: Domain or Company ID, Topic, Score 0-100,
Week) written as topics.csv; alone (no network source) it goes into DIR's sources, resolved against DIR's
companies. Any bad row refuses the file, each named by its line. docs/data.md, "Intent topics".
`,
    options: {
      out: { type: 'string' },
      'geoip2-enterprise': { type: 'string' },
      'geoip2-isp': { type: 'string' },
      'geoip2-domain': { type: 'string' },
      'asn-mmdb': { type: 'string' },
      'asn-csv': { type: 'string' },
      city: { type: 'string' },
      'anonymous-ip': { type: 'string' },
      firmographics: { type: 'string' },
      mapping: { type: 'string' },
      'intent-topics': { type: 'string' },
    },
    async run(v, _p, ctx) {
      const { importSources } = await import('../../data/import/import.ts');
      const { formatReport } = await import('../../data/import/report.ts');
      const { formatTopicsReport, importIntentTopics } = await import('../../data/import/intent-topics.ts');
      const out = requireOption(v, 'out');
      const file = (name: string) => (v[name] === undefined ? undefined : pathIn(ctx.io, v[name] as string));
      const topicsFile = file('intent-topics');
      const next = `(next: data build --in ${out} --out DIR)`;
      // Topics alone: a weekly vendor export lands in the sources without importing the networks again.
      const sources = ['geoip2-enterprise', 'geoip2-isp', 'geoip2-domain', 'asn-mmdb', 'asn-csv', 'city', 'anonymous-ip', 'firmographics', 'mapping'];
      if (topicsFile !== undefined && sources.every((k) => v[k] === undefined)) {
        const topics = await importIntentTopics({ out: pathIn(ctx.io, out), file: topicsFile, progress: await progressOf(ctx) });
        return emit(ctx, topics, () => `imported into ${resolve(ctx.io.cwd, out)} ${next}\n${formatTopicsReport(topics)}`);
      }
      const report = await importSources({
        out: pathIn(ctx.io, out),
        geoip2Enterprise: file('geoip2-enterprise'),
        geoip2Isp: file('geoip2-isp'),
        geoip2Domain: file('geoip2-domain'),
        asnMmdb: file('asn-mmdb'),
        asnCsv: file('asn-csv'),
        city: file('city'),
        anonymousIp: file('anonymous-ip'),
        firmographics: file('firmographics'),
        mapping: file('mapping'),
        intentTopics: topicsFile,
        progress: await progressOf(ctx),
      });
      const topicsWords = report.intent_topics ? `\n${formatTopicsReport(report.intent_topics)}` : '';
      emit(ctx, report, () => `imported into ${resolve(ctx.io.cwd, out)} ${next}\n${formatReport(report)}${topicsWords}`);
    },
  },

  'data build': {
    usage: 'data build --in DIR --out DIR [--if-stale] [--report]',
    summary: 'build networks.mmdb and catalog.db from a sources folder (atomic replace); --report adds the coverage report',
    options: { in: { type: 'string' }, out: { type: 'string' }, 'if-stale': { type: 'boolean' }, report: { type: 'boolean' } },
    async run(v, _p, ctx) {
      // Loaded on use: each command pulls in only the modules it needs, so the CLI starts fast.
      const { buildDataset, isStale } = await import('../../data/build/build.ts');
      const input = pathIn(ctx.io, requireOption(v, 'in'));
      const out = requireOption(v, 'out');
      if (v['if-stale'] && !isStale(input, pathIn(ctx.io, out))) {
        emit(ctx, { out, skipped: true }, () => `${out} is up to date`);
        return;
      }
      const summary = await buildDataset({ in: input, out: pathIn(ctx.io, out), progress: await progressOf(ctx) });
      const line = `built ${resolve(ctx.io.cwd, out)}: ${summary.networks} networks, ${summary.companies} companies, ${summary.people} people in ${summary.ms} ms`;
      if (!v.report) return emit(ctx, summary, () => line);
      const { coverageOfSources, formatReport } = await import('../../data/import/report.ts');
      const report = await coverageOfSources(input);
      emit(ctx, { ...summary, report }, () => `${line}\n${formatReport(report)}`);
    },
  },

  'customer create': {
    usage: 'customer create --id ID --name NAME --packages LIST [--identification-credits N] [--enrichment-credits N] [--contract-start YYYY-MM-DD]',
    summary: `create a new customer; an existing id is an error and changes nothing (packages: ${PACKAGES.join(', ')})`,
    help: '\nTo change a customer use `customer update ID`; `customer import FILE` replaces customers from a file.\n',
    options: { id: { type: 'string' }, ...CUSTOMER_OPTIONS },
    async run(v, _p, ctx) {
      const given = customerFields(v);
      const seed = CustomerSeed.parse({
        ...Object.fromEntries(Object.entries(given).filter(([, x]) => x !== undefined)),
        ...(v.grant === undefined ? {} : { grants: grantsOption(v.grant, 'grant') }),
        id: requireOption(v, 'id'),
        name: requireOption(v, 'name'),
      });
      const created = await withStore(ctx.io, async (store, _config, { users }) => {
        const p = await createCustomer(store, seed);
        await auditAsOperator(users, { customer: p.customer.id, action: 'customer.create', target: p.customer.id, after: p.customer });
        return p;
      });
      emitCustomer(ctx, 'created', created);
    },
  },

  'customer update': {
    usage:
      'customer update ID [--name NAME] [--packages LIST] [--identification-credits N] [--enrichment-credits N] [--contract-start YYYY-MM-DD] [--grant G]... [--revoke G]...',
    summary: `change a customer: only the options given are changed (products, segments and tags are kept); --grant/--revoke: ${GRANTS.join(', ')}`,
    options: { ...CUSTOMER_OPTIONS, revoke: { type: 'string', multiple: true } },
    async run(v, positionals, ctx) {
      const id = positionals[0];
      if (!id) throw new UsageError('ID is required');
      const patch = CustomerPatch.parse(Object.fromEntries(Object.entries(customerFields(v)).filter(([, x]) => x !== undefined)));
      const grant = grantsOption(v.grant, 'grant');
      const revoke = grantsOption(v.revoke, 'revoke');
      if (Object.keys(patch).length === 0 && grant.length === 0 && revoke.length === 0) throw new UsageError('nothing to change: give at least one option');
      const updated = await withStore(ctx.io, async (store, _config, { users }) => {
        const before = await store.getCustomer(id);
        if (before && (grant.length > 0 || revoke.length > 0)) {
          patch.grants = [...new Set([...before.grants, ...grant])].filter((g) => !revoke.includes(g));
        }
        const p = await updateCustomer(store, id, patch);
        await auditAsOperator(users, { customer: p.customer.id, action: 'customer.update', target: p.customer.id, ...changed(before, p.customer) });
        return p;
      });
      emitCustomer(ctx, 'updated', updated);
    },
  },

  'customer import': {
    usage: 'customer import FILE',
    summary: 'seed or replace the customers of a customers.json file (with products, segments, tags): the file is the truth',
    options: {},
    async run(_v, positionals, ctx) {
      const file = positionals[0];
      if (!file) throw new UsageError('FILE is required');
      const { customers } = readCustomersFile(pathIn(ctx.io, file));
      const imported = await withStore(ctx.io, async (store, _config, { users }) => {
        const out = [];
        for (const c of customers) {
          const before = await store.getCustomer(c.id);
          const p = await provisionCustomer(store, c);
          await auditAsOperator(users, { customer: p.customer.id, action: 'customer.import', target: p.customer.id, ...changed(before, p.customer) });
          out.push(p);
        }
        return out;
      });
      const generated = imported.filter((p) => p.leadScoringToken).map((p) => ({ customer: p.customer.id, ...p.leadScoringToken! }));
      emit(
        ctx,
        { imported: imported.map((p) => p.customer.id), lead_scoring_tokens: generated },
        () =>
          `imported ${imported.map((p) => p.customer.id).join(', ')}` +
          generated.map((g) => `\nLead Scoring token for ${g.customer} (shown once): ${g.token}`).join(''),
      );
    },
  },

  'token create': {
    usage:
      'token create --customer ID --group GROUP --name NAME [--integration X]... [--allowed-domain D]... [--scores] [--segment-names] [--intent-topics] [--rate-limit N]',
    summary: `create an API token; the secret is shown once (groups: ${TOKEN_GROUPS.join(', ')}; segments needs --grant segments)`,
    options: {
      customer: { type: 'string' },
      group: { type: 'string' },
      name: { type: 'string' },
      integration: { type: 'string', multiple: true },
      'allowed-domain': { type: 'string', multiple: true },
      scores: { type: 'boolean' },
      'segment-names': { type: 'boolean' },
      'intent-topics': { type: 'boolean' },
      'rate-limit': { type: 'string' },
    },
    async run(v, _p, ctx) {
      const group = TokenGroup.safeParse(requireOption(v, 'group'));
      if (!group.success) throw new UsageError(`--group must be one of ${TOKEN_GROUPS.join(', ')}`);
      const { record, secret } = await withStore(ctx.io, async (store, _config, { users }) => {
        const created = await store.createToken({
          customer_id: requireOption(v, 'customer'),
          api_group: group.data,
          name: requireOption(v, 'name'),
          integrations: listOption(v.integration),
          allowed_domains: domainsOption(v['allowed-domain']),
          scores: Boolean(v.scores),
          segment_names: Boolean(v['segment-names']),
          intent_topics: Boolean(v['intent-topics']),
          rate_limit: intOption(v, 'rate-limit', DEFAULT_TOKEN_LIMIT),
        });
        await auditAsOperator(users, {
          customer: created.record.customer_id,
          action: 'token.create',
          target: created.record.id,
          after: auditedToken(created.record),
        });
        return created;
      });
      emit(ctx, { ...record, token: secret }, () => `${tokenLine(record)}\n\nToken (shown once, store it now): ${secret}`);
    },
  },

  'token list': {
    usage: 'token list [--customer ID]',
    summary: 'list tokens (never their secrets)',
    options: { customer: { type: 'string' } },
    async run(v, _p, ctx) {
      const tokens = (await withStore(ctx.io, (store) => store.listTokens(v.customer as string | undefined))).map((t) => withAdvice(t));
      emit(ctx, tokens, () =>
        tokens.length ? tokens.map((t) => tokenLine(t) + (t.needs_rotation ? `\n    ! ${t.reasons.join('; ')}` : '')).join('\n') : 'no tokens',
      );
    },
  },

  ...Object.fromEntries(
    (['deactivate', 'activate', 'delete', 'rotate'] as const).map((action): [string, Command] => [
      `token ${action}`,
      {
        usage: `token ${action} ID`,
        summary: {
          deactivate: 'stop a token from working (reversible)',
          activate: 'let a deactivated token work again',
          delete: 'delete a token for good',
          rotate: 'replace the secret of a token; the new one is shown once',
        }[action],
        options: {},
        async run(_v, positionals, ctx) {
          const id = positionals[0];
          if (!id) throw new UsageError('ID is required');
          await withStore(ctx.io, async (store, _config, { users }) => {
            const before = await store.getToken(id);
            if (before) {
              const after =
                action === 'delete'
                  ? null
                  : { ...auditedToken(before), status: action === 'activate' ? 'active' : action === 'deactivate' ? 'inactive' : before.status };
              await auditAsOperator(users, {
                customer: before.customer_id,
                action: `token.${action}`,
                target: id,
                before: auditedToken(before),
                after,
              });
            }
            if (action === 'delete') {
              await store.deleteToken(id);
              emit(ctx, { id, deleted: true }, () => `deleted ${id}`);
            } else if (action === 'rotate') {
              const { record, secret } = await store.rotateToken(id);
              emit(ctx, { ...record, token: secret }, () => `${tokenLine(record)}\n\nNew token (shown once): ${secret}`);
            } else {
              const record = await store.setTokenStatus(id, action === 'activate' ? 'active' : 'inactive');
              emit(ctx, record, () => tokenLine(record));
            }
          });
        },
      },
    ]),
  ),

  'credits show': {
    usage: 'credits show --customer ID',
    summary: 'credit balances for the current contract year and usage per API and month',
    options: { customer: { type: 'string' } },
    async run(v, _p, ctx) {
      const report = await withStore(ctx.io, async (store) => {
        const id = requireOption(v, 'customer');
        const customer = await store.getCustomer(id);
        if (!customer) throw new UsageError(`unknown customer ${id}`);
        return creditReport(store, customer);
      });
      emit(ctx, report, () =>
        [
          `customer ${report.customer} (contract from ${report.contract_start})`,
          ...report.balances.map((b) => `  ${b.pool.padEnd(15)} ${b.period}: ${b.used} used of ${b.quota}, ${b.remaining} left`),
          'usage (month, pool, api, charges, of which by partners):',
          ...(report.usage.length
            ? report.usage.map((u) => `  ${u.month}  ${u.pool.padEnd(15)} ${u.api.padEnd(28)} ${u.charges}  (${u.partner_charges})`)
            : ['  none']),
        ].join('\n'),
      );
    },
  },

  'tag create': {
    usage:
      'tag create --customer ID --allowed-domain D... [--scores] [--segment-names] [--rate-limit N] [--visitor-rate-limit N] [--tag-id ID] [--endpoint URL]',
    summary: 'create a web tag and print the snippet to paste into the site',
    help:
      '\n--allowed-domain: one host per flag (www.example.com, localhost, 127.0.0.1, or *.example.com for its subdomains).' +
      `\n--rate-limit: requests per minute for the whole tag (default ${TAG_CEILING}); --visitor-rate-limit: per visitor IP (default ${TAG_PER_VISITOR_LIMIT}).` +
      '\n--endpoint is where the site loads the tag and API from (default: SVC_PUBLIC_URL, else http://localhost:$PORT, or $HOST when it is not 0.0.0.0).\n',
    options: {
      customer: { type: 'string' },
      'allowed-domain': { type: 'string', multiple: true },
      scores: { type: 'boolean' },
      'segment-names': { type: 'boolean' },
      'rate-limit': { type: 'string' },
      'visitor-rate-limit': { type: 'string' },
      'tag-id': { type: 'string' },
      endpoint: { type: 'string' },
    },
    async run(v, _p, ctx) {
      const tag = await withStore(ctx.io, async (store, _config, { users }) => {
        const created = await store.createTag({
          customer_id: requireOption(v, 'customer'),
          tag_id: v['tag-id'] as string | undefined,
          allowed_domains: domainsOption(v['allowed-domain']),
          scores: Boolean(v.scores),
          segment_names: Boolean(v['segment-names']),
          rate_limit: intOption(v, 'rate-limit'),
          visitor_rate_limit: intOption(v, 'visitor-rate-limit'),
        });
        await auditAsOperator(users, { customer: created.customer_id, action: 'tag.create', target: created.tag_id, after: created });
        return created;
      });
      const endpoint = (v.endpoint as string | undefined) ?? serverBaseUrl(configFor(ctx.io));
      const { renderSnippet } = await import('../../tag/snippet.ts');
      const snippet = renderSnippet({ tagId: tag.tag_id, endpoint });
      emit(
        ctx,
        { tagId: tag.tag_id, snippet, ...tag },
        () =>
          `tag ${tag.tag_id} for ${tag.allowed_domains.join(', ')} (${tag.rate_limit}/min, ${tag.visitor_rate_limit}/min per visitor)\n\nPaste into every page, in <head>:\n\n${snippet}`,
      );
    },
  },
  ...ENRICH_COMMANDS,
  ...CRM_COMMANDS,
  ...ALERT_COMMANDS,
  ...DIGEST_COMMANDS,
  ...STATE_COMMANDS,
  ...USER_COMMANDS,
};
