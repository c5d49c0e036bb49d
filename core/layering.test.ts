/**
 * The layering rule of server/: who may import whom, so each folder can be read, tested and changed
 * without its dependants' dependants. Every module of server/ (tests and server/testing/ aside: they set
 * up whatever they drive) has one role:
 *
 * - composition root — app.ts, app-shell.ts, routes.ts, services.ts, serve.ts, cluster.ts, build.ts, cli/:
 *   the only modules that import everything (they assemble the app, the route table, the process).
 * - shared — config.ts, cache/, state/ (its ports and services), data/ (the read-only dataset), net/
 *   (addresses), geoip/, scoring/, customers/, auth/, credits/, limits/, observability/, lookalikes/ (the
 *   similarity method and its per-snapshot index, which segment rules read), and the OpenAPI
 *   vocabulary route docs are written in (openapi/kit.ts, examples.json): imports core/, data/ and tag/
 *   of the repository, and other shared modules. Never http/, never a feature.
 * - http/ — transport and the one pipeline (router, run-route, bodies, errors, route-def, admin-route,
 *   workspace-access, tag-mode): imports core/ and shared modules. Never a feature.
 * - feature — every other folder (identification, enrichment, people, segments, lists, visits, webhooks,
 *   events, accounts, onboarding, admin, users, demo, tag, openapi) and the route modules of shared
 *   folders (ROUTE_MODULES): imports core/, shared modules, http/, `import type` of services.ts (what a
 *   handler runs on) and its own folder. A feature builds on another only along FEATURE_USES, a list
 *   with a reason per edge that must stay acyclic: no two features reach each other.
 * - console — server/console/, the browser bundle: imports core/ (records, vocabulary, links), tag/ (the
 *   snippet it shows) and its own folder; of the server at most `import type` of an answer's
 *   shapes (erased from the bundle), and nothing of server/state/ — records come from core/.
 *
 * What breaks the rule today is EXCEPTIONS, each with why and what ends it. Keep it short: a new
 * cross-feature need is either a FEATURE_USES edge (with its reason, acyclic) or a module moved down.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const COMPOSITION_ROOT = ['app', 'app-shell', 'routes', 'services', 'serve', 'cluster', 'build', 'cli'];
/** Composition-root modules inside a folder: the OpenAPI document, assembled from every feature's schemas and the route table. */
const COMPOSITION_MODULES = ['server/openapi/document.ts', 'server/openapi/bodies.ts'];
const SHARED = ['config', 'cache', 'state', 'data', 'net', 'geoip', 'scoring', 'customers', 'auth', 'credits', 'limits', 'observability', 'lookalikes'];
/** Shared modules inside a feature folder: the OpenAPI vocabulary every route's docs are written in. */
const SHARED_MODULES = ['server/openapi/kit.ts', 'server/openapi/examples.json'];
/** Route modules of shared folders: features (they import http/ to define routes). */
const ROUTE_MODULES = [
  'server/auth/routes.ts',
  'server/auth/sso-routes.ts',
  'server/credits/usage-route.ts',
  'server/observability/health.ts',
  'server/observability/metrics-route.ts',
  'server/lookalikes/routes.ts',
];

/** Which features a feature builds on, and why. Acyclic (checked); an unused edge fails too. */
const FEATURE_USES: Record<string, Record<string, string>> = {
  identification: {
    segments: 'the answer carries the customer’s segments (evaluate, account facts)',
    visits: 'type of the page-view recorder it is given (tag sightings, first-party intent)',
  },
  enrichment: { segments: 'the answer carries the segments, as identification’s' },
  people: { enrichment: 'a person’s answer reads the lead body and builds the company as /v3/enrich does' },
  accounts: {
    identification: 'the page’s firmographics as identification builds them',
    segments: 'the account’s segments',
    visits: 'the account’s page views (report rows) and its engagement summary',
    webhooks: 'type of a delivery (the page lists the account’s webhook deliveries)',
  },
  visits: { segments: 'a recorded view re-evaluates the account’s segments (segment.entered)' },
  webhooks: {
    identification: 'the payload’s company as identification answers it',
    visits: 'type of the page-view recorder the dispatcher listens to; the account’s engagement summary v3 payloads carry',
  },
  events: {
    identification: 'the registry holds every emitted event’s schema: the answer pushed to dataLayer',
    visits: 'the beacon',
    webhooks: 'the webhook payloads',
  },
  demo: { segments: 'the demo visitors’ segments', users: 'the seed audits as system:demo-seed' },
  admin: { users: 'audit fields of a token change' },
  crm: { accounts: 'a CRM record gets exactly the values the account page shows (gather.ts)' },
  digests: {
    segments: 'a digest scoped to segments evaluates the customer’s rules and lists on the visiting accounts',
    alerts: '“my accounts” finds owners as alerts route to them (territory rules)',
  },
  auth: { users: 'sign-in accepts an invitation (auth/routes.ts)' },
  lookalikes: { segments: 'a preview seeded by a segment or a list reads its accounts as segment rules do (lookalike-seeds.ts)' },
  home: { webhooks: 'segment entries are counted only while an endpoint needs segment facts (needsEnrichment)' },
  alerts: {
    webhooks: 'an alert is an outbox endpoint: planned and delivered by the webhook dispatcher (its facts, samples, destination rules, masked URLs)',
  },
  committee: { people: 'the committee is People Search’s profiles, a reveal People Enrichment’s answer (one answer, one charge)' },
};

/**
 * Imports that break the rule today, as `from → to` prefixes (a folder ends in `/`). Each says why and
 * what ends it.
 */
const EXCEPTIONS: { from: string; to: string; why: string }[] = [
  // Test tooling that lives beside the document it checks.
  { from: 'server/openapi/sample-examples.ts', to: 'server/', why: 'writes examples.json from a real server (a tool run by hand and by its test)' },
  // The Developers page shows the document's sample answer.
  {
    from: 'server/console/developers-view.ts',
    to: 'server/openapi/examples.json',
    why: 'the sample identification answer it renders; ends when the sample moves to core/',
  },
  // The events registry and the webhooks reach each other: registry → payloads, routes → registry.
  {
    from: 'server/webhooks/routes.ts',
    to: 'server/events/registry.ts',
    why: 'an endpoint’s `versions` checked against the registry; ends when the versions table moves to webhooks/',
  },
  // The dataset warms the segments' per-snapshot indexes when it opens a snapshot.
  {
    from: 'server/data/dataset.ts',
    to: 'server/segments/',
    why: 'warmSegmentIndex / warmIntentTable per snapshot; ends with a warm-up hook given by serve.ts',
  },
  // The outbox stores what the webhook schema describes.
  { from: 'server/state/', to: 'server/webhooks/schema.ts', why: 'the outbox’s endpoint and delivery records; end when they move to core/' },
  // Types only, erased at run time.
  { from: 'server/auth/session.ts', to: 'server/http/request-id.ts', why: 'type of the request a session is read from' },
  { from: 'server/customers/change-record.ts', to: 'server/http/route-def.ts', why: 'type of the route context it audits through' },
  // Production code reading a test fixture.
  {
    from: 'server/enrichment/batch-test-leads.ts',
    to: 'server/testing/fixtures.ts',
    why: 'the documented test leads are the fixture’s rows; ends when they move to data/',
  },
  // The Developers page runs the server's webhook planner on a sample answer.
  { from: 'server/console/developers-view.ts', to: 'server/webhooks/events.ts', why: 'plannedEvents in the browser; ends when the planner moves to core/' },
];

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(entry.name) && !isTest(entry.name)) out.push(path);
  }
  return out;
}

interface Import {
  specifier: string;
  typeOnly: boolean;
}

/** Static imports and re-exports (type-only when `import type` or every name is `type X`), side-effect imports, import(). */
function importsOf(source: string): Import[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: Import[] = [];
  for (const m of code.matchAll(/\b(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*(['"])([^'"]+)\3/g)) {
    const names = m[2].trim();
    const allTypes =
      /^\{[\s\S]*\}$/.test(names) &&
      names
        .slice(1, -1)
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean)
        .every((n) => n.startsWith('type '));
    found.push({ specifier: m[4], typeOnly: m[1] !== undefined || allTypes });
  }
  for (const m of code.matchAll(/\bimport\s*(['"])([^'"]+)\1/g)) found.push({ specifier: m[2], typeOnly: false });
  for (const m of code.matchAll(/\bimport\s*\(\s*(['"])([^'"]+)\1/g)) found.push({ specifier: m[2], typeOnly: false });
  return found;
}

/** `server/x/…` → `x`; `server/x.ts` → `x`. */
const folderOf = (path: string) => path.split('/')[1]!.replace(/\.tsx?$/, '');

type Role = 'root' | 'testing' | 'shared' | 'http' | 'console' | 'feature';

function roleOf(path: string): Role {
  const folder = folderOf(path);
  if (COMPOSITION_ROOT.includes(folder) || COMPOSITION_MODULES.includes(path)) return 'root';
  if (folder === 'testing') return 'testing';
  if (folder === 'http') return 'http';
  if (folder === 'console') return 'console';
  if (SHARED_MODULES.includes(path) || (SHARED.includes(folder) && !ROUTE_MODULES.includes(path))) return 'shared';
  return 'feature';
}

/** Why `file` may not import `to` (a repository path), or null when it may. */
function breach(file: string, to: string, typeOnly: boolean): string | null {
  if (to.startsWith('core/')) return null;
  const role = roleOf(file);
  if (role === 'root' || role === 'testing') return null;
  if (!to.startsWith('server/')) {
    if (role === 'console' && !to.startsWith('tag/')) return 'the console imports core/, tag/ and its own folder';
    return null;
  }
  const from = folderOf(file);
  const target = folderOf(to);
  const targetRole = roleOf(to);
  if (role === 'console') {
    if (target === 'console') return null;
    if (target === 'state') return 'the console takes records from core/, never from server/state/';
    return typeOnly ? null : 'the console imports core/, tag/ and its own folder (and types of answers)';
  }
  if (target === from && targetRole !== 'feature') return null;
  if (to === 'server/services.ts' && typeOnly) return null;
  if (targetRole === 'shared') return null;
  if (role === 'shared') return `a shared module imports only core/ and shared modules (${to} is ${targetRole})`;
  if (role === 'http') return `http/ imports no feature (${to} is ${targetRole})`;
  // A feature.
  if (targetRole === 'http' || target === from) return null;
  if (targetRole === 'feature' && FEATURE_USES[from]?.[target] !== undefined) return null;
  return `${from} → ${target} is not in FEATURE_USES`;
}

const excepted = (file: string, to: string, list = EXCEPTIONS) =>
  list.some((e) => (e.from.endsWith('/') ? file.startsWith(e.from) : file === e.from) && (e.to.endsWith('/') ? to.startsWith(e.to) : to === e.to));

interface Edge {
  file: string;
  to: string;
  typeOnly: boolean;
}

function serverEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles('server')) {
    for (const { specifier, typeOnly } of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const to = relative(ROOT, resolve(ROOT, dirname(file), specifier))
        .split(sep)
        .join('/');
      edges.push({ file, to, typeOnly });
    }
  }
  return edges;
}

describe('importsOf', () => {
  it('tells type-only imports from value imports', () => {
    const source = [
      "import type { A } from './a.ts';",
      "import { type B, type C } from './b.ts';",
      "import { type D, e } from './d.ts';",
      "export { f } from './f.ts';",
      "const g = await import('./g.ts');",
      "// import { h } from './h.ts';",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      { specifier: './a.ts', typeOnly: true },
      { specifier: './b.ts', typeOnly: true },
      { specifier: './d.ts', typeOnly: false },
      { specifier: './f.ts', typeOnly: false },
      { specifier: './g.ts', typeOnly: false },
    ]);
  });
});

describe('the layering rule', () => {
  it('gives each module the role the rule names', () => {
    expect(roleOf('server/http/run-route.ts')).toBe('http');
    expect(roleOf('server/state/store.ts')).toBe('shared');
    expect(roleOf('server/auth/authenticate.ts')).toBe('shared');
    expect(roleOf('server/auth/routes.ts')).toBe('feature');
    expect(roleOf('server/openapi/kit.ts')).toBe('shared');
    expect(roleOf('server/identification/route.ts')).toBe('feature');
    expect(roleOf('server/cli/run.ts')).toBe('root');
    expect(roleOf('server/console/ui/App.tsx')).toBe('console');
    for (const path of ROUTE_MODULES) expect(readdirSync(join(ROOT, dirname(path)))).toContain(path.split('/').pop());
  });

  it('finds a feature importing a feature it does not build on, http/ importing a feature, the console importing state', () => {
    expect(breach('server/http/run-route.ts', 'server/admin/routes.ts', false)).toMatch(/http\/ imports no feature/);
    expect(breach('server/limits/policy.ts', 'server/http/visitor-ip.ts', false)).toMatch(/shared module/);
    expect(breach('server/segments/routes.ts', 'server/enrichment/email.ts', false)).toMatch(/segments → enrichment/);
    expect(breach('server/console/tag-form.ts', 'server/state/store.ts', true)).toMatch(/never from server\/state/);
    expect(breach('server/console/groups.ts', 'server/auth/entitlements.ts', false)).toMatch(/console imports core/);
    expect(breach('server/visits/admin-routes.ts', 'server/http/admin-route.ts', false)).toBeNull();
    expect(breach('server/people/route.ts', 'server/enrichment/request-body.ts', false)).toBeNull();
  });

  it('holds for every module of server/, but for the listed exceptions', () => {
    const found = serverEdges()
      .filter(({ file, to, typeOnly }) => breach(file, to, typeOnly) !== null && !excepted(file, to))
      .map(({ file, to, typeOnly }) => `${file} → ${to}: ${breach(file, to, typeOnly)}`);
    expect(found).toEqual([]);
  });

  it('lists no exception that nothing needs any more', () => {
    const breaches = serverEdges().filter(({ file, to, typeOnly }) => breach(file, to, typeOnly) !== null);
    const unused = EXCEPTIONS.filter((e) => !breaches.some(({ file, to }) => excepted(file, to, [e])));
    expect(unused.map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });

  it('lets features build on each other only along FEATURE_USES, which has no cycle and no unused edge', () => {
    const used = new Set(
      serverEdges().flatMap(({ file, to }) =>
        roleOf(file) === 'feature' && roleOf(to) === 'feature' && folderOf(file) !== folderOf(to) ? [`${folderOf(file)}→${folderOf(to)}`] : [],
      ),
    );
    const listed = Object.entries(FEATURE_USES).flatMap(([from, uses]) => Object.keys(uses).map((to) => `${from}→${to}`));
    expect(listed.filter((edge) => !used.has(edge))).toEqual([]);
    // Depth-first: a feature met again while its own uses are being walked closes a cycle.
    const cycles: string[] = [];
    const state = new Map<string, 'walking' | 'done'>();
    const walk = (feature: string, path: string[]) => {
      if (state.get(feature) === 'done') return;
      if (state.get(feature) === 'walking') {
        cycles.push([...path.slice(path.indexOf(feature)), feature].join(' → '));
        return;
      }
      state.set(feature, 'walking');
      for (const next of Object.keys(FEATURE_USES[feature] ?? {})) walk(next, [...path, feature]);
      state.set(feature, 'done');
    };
    for (const feature of Object.keys(FEATURE_USES)) walk(feature, []);
    expect(cycles).toEqual([]);
  });
});

describe('the two tag routes', () => {
  it('read the visitor address, answer the preflight and find the network’s company by one module each', () => {
    for (const file of ['server/identification/route.ts', 'server/visits/events-route.ts']) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      const imported = importsOf(source).map((i) =>
        relative(ROOT, resolve(ROOT, dirname(file), i.specifier))
          .split(sep)
          .join('/'),
      );
      expect(imported, file).toEqual(expect.arrayContaining(['server/http/tag-mode.ts', 'server/data/network-company.ts']));
      // Their own copies, as they were: the demo tag's test_ip rule, the preflight's Origin check, the company of a network.
      expect(source, file).not.toMatch(/toVisitorIp|requestHost|network\?\.kind === 'company'/);
    }
  });
});
