/**
 * The request bodies of the document's components (`#/components/schemas/<name>`), from the zod schemas the
 * routes validate with, each top-level field described. Only the document (./document.ts) imports this
 * file, so the kit the features build their operations with imports no feature.
 */

import { NewTag, NewToken, TagPatch, TagSettings } from '../../core/access-records.ts';
import { CustomerPatch, CustomerSeed } from '../../core/customer-records.ts';
import { CombinedBody, FirmographicsV2Body, FirmographicsV3Body, LeadScoringBody } from '../enrichment/schema.ts';
import { PeopleEnrichmentBody, PeopleSearchBody } from '../people/schema.ts';
import { NewSegment, SegmentPatch, SegmentPreviewBody } from '../segments/schema.ts';
import { CustomEventBeacon, EngagementBeacon, PageViewBeacon } from '../visits/beacon.ts';
import { NewWebhook } from '../webhooks/schema.ts';
import { type BodyName, type Json, schema } from './kit.ts';

/**
 * Descriptions of a body's top-level fields, checked against its schema both ways: a field added to the
 * zod schema without a word here fails the build of the document, as does a word for a field it lacks.
 */
function described(json: Json, descriptions: Record<string, string>): Json {
  const properties = json.properties as Record<string, Json>;
  for (const name of Object.keys(properties)) if (!descriptions[name]) throw new Error(`request field ${name} has no description`);
  for (const [name, text] of Object.entries(descriptions)) {
    if (!properties[name]) throw new Error(`described field ${name} is not in the schema`);
    properties[name] = { ...properties[name], description: text };
  }
  return json;
}

/** The string branch of a zod text field (`anyOf: [string, null]`), non-blank: what a required form field must be. */
function nonBlank(field: Json): Json {
  const text = ((field.anyOf as Json[] | undefined) ?? [field]).find((b) => b.type === 'string');
  if (!text) throw new Error('not a text field');
  return { ...text, pattern: '\\S', ...(field.description ? { description: field.description } : {}) };
}

/**
 * Zod checks blank fields after the types (400 `blank`), so its JSON Schema marks nothing required; the
 * document says which fields must be non-blank. `anyOf`: at least one of them.
 */
function requireFields(json: Json, rule: { all: string[] } | { anyOf: string[] }): Json {
  const properties = json.properties as Record<string, Json>;
  if ('all' in rule) {
    for (const f of rule.all) properties[f] = nonBlank(properties[f]!);
    return { ...json, required: rule.all };
  }
  return { ...json, anyOf: rule.anyOf.map((f) => ({ type: 'object', required: [f], properties: { [f]: { type: 'string', pattern: '\\S' } } })) };
}

const LEAD_FIELDS = {
  email: "The lead's email address: the known person, else the company of its domain (free-mail domains identify none)",
  country: "The lead's country: tells apart companies sharing a domain (never identifies a company on its own)",
  company: "The lead's company name: tells apart companies sharing a domain",
  industry: "The company's industry: tells apart companies sharing a domain",
  title: "The lead's job title: gives titleLevel, titleFunction and the contact profile score when the email is no known person",
  website: "The company's website or domain: tried when the email identifies no company (free-mail or unknown domain)",
  role: 'Accepted, not used',
  firstname: 'Accepted, not used',
  lastname: 'Accepted, not used',
  leadsource: 'Accepted, not used',
};

export const bodies = {
  FirmographicsV3Body: requireFields(
    described(schema(FirmographicsV3Body, 'input'), {
      ...LEAD_FIELDS,
      domain: "The company's domain: used when email is blank or identifies no company (email is tried first)",
    }),
    { anyOf: ['email', 'domain'] },
  ),
  FirmographicsV2Body: requireFields(described(schema(FirmographicsV2Body, 'input'), LEAD_FIELDS), { all: ['email'] }),
  CombinedBody: requireFields(described(schema(CombinedBody, 'input'), { ...LEAD_FIELDS, country: `${LEAD_FIELDS.country}. Recommended.` }), {
    all: ['email'],
  }),
  LeadScoringBody: requireFields(described(schema(LeadScoringBody, 'input'), LEAD_FIELDS), { all: ['email', 'country'] }),
  PeopleEnrichmentBody: requireFields(
    described(schema(PeopleEnrichmentBody, 'input'), {
      people_id: 'A people id (from People Search): tried first',
      email: "The person's email address: tried second",
      linkedin_url: "The person's professional-network profile URL: tried last",
    }),
    { anyOf: ['people_id', 'email', 'linkedin_url'] },
  ),
  PeopleSearchBody: requireFields(
    described(schema(PeopleSearchBody, 'input'), {
      domain: "The company's domain: the people of the companies behind it are searched",
      locations: 'Only people whose country, state or city equals one of these (comma-separated text, or a list)',
      industries: 'Only people of companies whose industry or subindustry equals one of these',
      job_titles: 'Only people whose title contains one of these as a word sequence, or whose titleLevel or titleFunction equals one',
      page: 'Page number, from 1',
      page_size: 'Profiles per page, 1–100',
    }),
    { all: ['domain'] },
  ),
  PageViewBeacon: described(schema(PageViewBeacon, 'input'), {
    type: 'Always `pageview`',
    path: "The page's path; only `utm_*` query parameters are kept, the fragment never",
    referrer: 'The referring page (a URL or a host): only its host is kept',
    session: 'A random id the tag keeps for the browser session',
  }),
  EngagementBeacon: described(schema(EngagementBeacon, 'input'), {
    type: 'Always `engagement`',
    path: 'The page view’s path, as its page view sent it',
    session: 'The page view’s session id',
    engaged_ms: 'Milliseconds the page was visible since the last report (the server adds at most an hour per beacon)',
  }),
  CustomEventBeacon: described(schema(CustomEventBeacon, 'input'), {
    type: 'Always `event`',
    name: 'The event’s name: 1–64 of a–z 0–9 _, starting with a letter',
    properties:
      'At most 10 flat properties (a string of at most 200 characters, a number, a boolean); any that looks like an email, a token or a phone number is dropped',
    path: 'The page the event happened on (as a page view’s path)',
    session: 'The session id of the tab',
  }),
  CustomerSeed: described(schema(CustomerSeed, 'input'), {
    id: "The customer's id (1–64 of A–Z a–z 0–9 _ -); an existing id is a 409",
    name: "The customer's name",
    packages: 'Packages bought: which API groups its tokens may call (advanced also gets an automatic Lead Scoring token)',
    identification_credits: 'Company Identification credits per contract year',
    enrichment_credits: 'Enrichment API credits per contract year',
    contract_start: 'Start of the contract (YYYY-MM-DD): quotas run per contract year from here',
    products: 'Predictive models (product categories): ideal customer profile, intent topics, persona; one score per product',
    segments: 'Account segments: a segment matches when every listed field matches one of its values',
    excluded_accounts: 'Company ids excluded in the platform settings (`is_blacklisted`)',
    hot_accounts: 'Company ids flagged as hot accounts (`is_svcqa`), optionally for some products only',
    account_lists: 'Named account lists `{id, name, company_ids}` a segment can use (`in_list`); edited at /admin/api/customers/:id/lists',
    grants: 'API groups granted beyond the packages (`segments`: the Segments API)',
    kept_query_params:
      'Query parameters that make a page of its own on the account page (`plan` keeps `/pricing?plan=pro` apart); every other one, UTM included, is collapsed into the path',
    topics: 'Third-party intent topics the customer follows (names of the dataset’s topics; PUT /admin/api/customers/:id/topics checks them)',
    tags: 'Web tags to create or update with the customer',
  }),
  CustomerPatch: described(schema(CustomerPatch, 'input'), {
    name: "The customer's name",
    packages: 'Packages bought (the whole list; adding advanced creates the Lead Scoring token)',
    identification_credits: 'Company Identification credits per contract year',
    enrichment_credits: 'Enrichment API credits per contract year',
    contract_start: 'Start of the contract (YYYY-MM-DD)',
    products: 'Predictive models (the whole list)',
    segments: 'Account segments (the whole list)',
    excluded_accounts: 'Excluded company ids (the whole list)',
    hot_accounts: 'Hot accounts (the whole list)',
    grants: 'API groups granted beyond the packages (the whole list; `segments`: the Segments API). Removing one makes its tokens answer 403',
    kept_query_params: 'Query parameters kept apart on the account page (the whole list)',
    topics: 'Third-party intent topics the customer follows (the whole list; PUT …/topics checks them against the dataset)',
  }),
  NewSegment: described(schema(NewSegment, 'input'), {
    name: 'A name for people, unique in the customer (case-insensitive)',
    match: 'The rule: every listed field matches one of its values (AND across fields, OR within one, case-insensitive); an empty rule matches nothing',
  }),
  SegmentPatch: described(schema(SegmentPatch, 'input'), {
    name: 'The new name (unique in the customer)',
    match: 'The new rule (the whole rule)',
  }),
  SegmentPreviewBody: described(schema(SegmentPreviewBody, 'input'), {
    match: 'The rule to preview',
  }),
  NewToken: described(schema(NewToken, 'input'), {
    customer_id: 'The customer the token belongs to',
    api_group: "The one API group the token may call; the customer's packages must cover it (else 403)",
    name: 'A name for people: name it after its integration',
    integrations: 'The integrations that use it (labels)',
    allowed_domains:
      "Identification tokens only: page domains a browser may use it from (`example.com`, `*.example.com`, `localhost`); such a token answers only for the visitor's own address",
    scores: 'Whether answers carry scores (off by default)',
    segment_names: 'Whether answers carry segment names (off by default)',
    intent_topics:
      'Whether identification and enrichment answers carry `intent_topics`: the customer’s followed third-party topics the account has a score for this week (off by default; without it the answer has no such field)',
    rate_limit: 'Requests per minute',
  }),
  NewTag: described(schema(NewTag, 'input'), {
    customer_id: 'The customer the tag belongs to (its packages must cover identification)',
    tag_id: 'Your own id for the tag (4–64 of A–Z a–z 0–9 _ -); generated when absent',
    allowed_domains: 'Page domains the tag answers on (at least one; `*.example.com` for subdomains)',
    scores: 'Whether answers carry scores',
    segment_names: 'Whether answers carry segment names',
    rate_limit: 'Requests per minute across all visitors of the tag',
    visitor_rate_limit: 'Requests per minute per visitor address',
    demo: 'Demo tags honour `test_ip` in demo mode',
    settings: 'Bundle settings inlined into /tag/v1/<tagId>.js (see TagSettings)',
  }),
  TagPatch: described(schema(TagPatch, 'input'), {
    allowed_domains: 'Page domains the tag answers on (the whole list, at least one)',
    scores: 'Whether answers carry scores',
    segment_names: 'Whether answers carry segment names',
    rate_limit: 'Requests per minute across all visitors of the tag',
    visitor_rate_limit: 'Requests per minute per visitor address',
    demo: 'Demo tags honour `test_ip` in demo mode',
    disabled:
      'A disabled tag answers lookups and page views 403 (`web tag … is disabled`) and its /tag/v1/<tagId>.js 404 with a JavaScript comment; false enables it again',
    settings: 'Bundle settings (the whole object, as PATCH …/settings)',
  }),
  TagSettings: described(schema(TagSettings, 'input'), {
    fields: 'Answer fields pushed to dataLayer (address and phone are left out by default)',
    min_confidence: 'Answers below this confidence are not used',
    cache_ttl_ms: 'How long the tag keeps an answer in the browser',
    consent_default: 'Consent state before the page sets one',
    anti_flicker_timeout_ms: 'How long personalised elements stay hidden at most',
    honor_gpc: 'Whether Global Privacy Control suppresses the lookup (default true)',
    features:
      'Which bundle variant the tag gets: personalisation, form_fill, spa, page_views, debug are on when absent; integrations is off when absent (true: the code, the page chooses the tools; {ga4, segment}: those tools told by default)',
  }),
  NewWebhook: described(schema(NewWebhook, 'input'), {
    url: 'Where events are POSTed: an absolute http(s) URL without credentials',
    events: 'The events to receive: account.visited, account.hot, segment.entered, tag.installed',
    hot_paths: 'Path globs (`/pricing*`) that make a visit `account.hot`',
    description: 'A note for people',
    event_versions: 'The payload version per event (`{"account.visited": 1}`); events not named get their newest version (GET /schemas lists them)',
    segment_names: 'Segment names in payloads (ids always); default false for JSON endpoints, true for Slack',
    scores: 'Scores per product in account events (v2); default false',
    format:
      '`json` (default): signed event bodies; `slack`: the URL is a Slack incoming webhook and gets Block Kit messages (account.visited, account.hot, segment.entered; one message per account visit, a digest when several are due, at most one a second)',
    filters:
      'Which accounts raise events (every format): `segments` (in any of these segment ids), `hot_only` (a hot account, or a view of a hot page), `min_page_views` (page views in this visit, this one included); all given must hold',
  }),
} satisfies Record<BodyName, Json>;
