/** The OpenAPI operations of the account page's People section (routes.ts), over the shared kit. */
import { admin, adminErrors, idParam, json, pathParam, ref, schema } from '../openapi/kit.ts';
import { COMMITTEE_CSV_COLUMNS, COMMITTEE_MAX_PEOPLE, COMMITTEE_SCAN_LIMIT } from './committee.ts';
import { CommitteeAnswer } from './schema.ts';

const COMPANY = pathParam('companyId', 'The company id (catalog)');
const ADD_ON =
  'The customer needs the people add-on (`people-enrichment` with `platform` or `sales-intelligence`), as the People Search and People Enrichment APIs do: without it, 403 `forbidden` saying so.';

export const committeeDocs = {
  get: admin('getAccountPeople', 'The buying committee of an account: the people of the catalog at its domain by function × seniority', {
    description: `\`reports:read\`. The people People Search answers for the account's domain (every catalog company at that domain, the account first; a company without a domain: its own people), grouped by function (\`titleFunction\`) then seniority (\`titleLevel\`, most senior first) as the title classifier reads their titles; a title it cannot read is grouped under \`null\`. Each person is a People Search profile — whether an email, a phone and a mobile exist, never the values — with its \`company_id\`. At most ${COMMITTEE_MAX_PEOPLE} people (the most senior) of the first ${COMMITTEE_SCAN_LIMIT.toLocaleString('en-US')} read; \`truncated\` says when some were left out. \`reveal\` says whether the caller may reveal them (\`people:reveal\` and the add-on) and why not. Never charged. ${ADD_ON} An unknown company is 404.`,
    parameters: [idParam('customer'), COMPANY],
    responses: {
      200: {
        description: 'The committee; as CSV (that of `…/people.csv`) with `Accept: text/csv`',
        content: { ...json(schema(CommitteeAnswer)), 'text/csv': { schema: { type: 'string' } } },
      },
      ...adminErrors('read'),
    },
  }),
  csv: admin('getAccountPeopleCsv', 'The buying committee of an account as CSV (spreadsheet-safe)', {
    description: `\`reports:read\`. The people of \`GET …/people\` in its order, one row each: ${COMMITTEE_CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')} (\`function\` and \`seniority\` blank when the title cannot be read; \`has_*\` \`true\` or \`false\`). No contact detail. A cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first) starts with \`'\`. Never charged. ${ADD_ON}`,
    parameters: [idParam('customer'), COMPANY],
    responses: {
      200: { description: 'The committee', content: { 'text/csv': { schema: { type: 'string' } } } },
      ...adminErrors('read'),
    },
  }),
  reveal: admin('revealAccountPerson', 'Reveal a person of an account’s committee: the People Enrichment answer, charged as People Enrichment', {
    description: `\`people:reveal\` (owners, admins, marketers and the operator by default). No body (a JSON one is ignored). The person must be one of the account's committee (else 404). The answer is \`POST /v2/enrichment/people\`'s for \`people_id\` — the person's contact information and their company's firmographics — charged exactly as that API charges: 1 Enrichment API credit from the same pool, free again for the same person for the rest of the UTC calendar month (whether revealed here or exported through the API); none left → 402 \`quota_exhausted\` and nothing is shown. Every reveal is in the audit log (\`person.reveal\`, the people id; never the contact details). ${ADD_ON}`,
    parameters: [idParam('customer'), COMPANY, pathParam('personId', 'The people id (`people_id` of the committee)')],
    responses: {
      200: { description: "The person's contact information and their company", content: json(ref('PeopleEnrichmentResponse')) },
      ...adminErrors('read', 402, 415),
    },
  }),
};
