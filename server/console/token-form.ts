/**
 * The create-token form as data: its fields as typed, and the admin API body they become. Checks only
 * what a person can fix before sending (a name, a sane rate limit, the allowed-domain syntax); the server
 * validates everything again.
 */

import type { NewToken } from '../../core/access-records.ts';
import { parseAllowedDomains } from '../../core/allowed-domain.ts';
import type { ApiGroup } from '../../core/customer-records.ts';
import { DEFAULT_TOKEN_LIMIT } from '../../core/vocabulary.ts';
import { groupUsesDomains } from './groups.ts';

export interface TokenFormFields {
  api_group: ApiGroup | '';
  name: string;
  /** Comma- or newline-separated. */
  integrations: string;
  /** Comma-, space- or newline-separated; only sent for identification tokens. */
  allowed_domains: string;
  scores: boolean;
  segment_names: boolean;
  /** Answers carry the account's followed intent topics (sent only when on). */
  intent_topics?: boolean;
  rate_limit: string;
}

/** The server's default token limit (one vocabulary: core/vocabulary.ts). */
export const DEFAULT_RATE_LIMIT = DEFAULT_TOKEN_LIMIT;
export const MAX_RATE_LIMIT = 1_000_000;

export function emptyTokenForm(group: ApiGroup | '' = ''): TokenFormFields {
  return {
    api_group: group,
    name: '',
    integrations: '',
    allowed_domains: '',
    scores: false,
    segment_names: false,
    intent_topics: false,
    rate_limit: String(DEFAULT_RATE_LIMIT),
  };
}

/** Trimmed, non-blank, de-duplicated items of a list typed into one field. */
export function splitList(text: string, separators: RegExp = /[,\n]/): string[] {
  return [
    ...new Set(
      text
        .split(separators)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

export type TokenFormResult = { ok: true; body: NewToken } | { ok: false; field: keyof TokenFormFields; message: string };

export function tokenRequestBody(customerId: string, f: TokenFormFields): TokenFormResult {
  if (!f.api_group) return { ok: false, field: 'api_group', message: 'Choose an API group.' };
  const name = f.name.trim();
  if (!name) return { ok: false, field: 'name', message: 'A token needs a name (name it after its integration).' };
  const rateText = f.rate_limit.trim();
  const rate = rateText === '' ? DEFAULT_RATE_LIMIT : Number(rateText);
  if (!Number.isInteger(rate) || rate < 1 || rate > MAX_RATE_LIMIT) {
    return {
      ok: false,
      field: 'rate_limit',
      message: `Rate limit: a whole number of requests per minute from 1 to ${MAX_RATE_LIMIT.toLocaleString('en-US')}.`,
    };
  }
  // The field takes several domains separated by commas, spaces or new lines; each is checked on its own.
  const domains = groupUsesDomains(f.api_group) ? parseAllowedDomains(splitList(f.allowed_domains, /[,\s]+/)) : { ok: true as const, value: [] };
  if (!domains.ok) return { ok: false, field: 'allowed_domains', message: domains.message.replace(/^allowed domain/, 'Allowed domain') + '.' };
  return {
    ok: true,
    body: {
      customer_id: customerId,
      api_group: f.api_group,
      name,
      integrations: splitList(f.integrations),
      allowed_domains: domains.value,
      scores: f.scores,
      segment_names: f.segment_names,
      ...(f.intent_topics ? { intent_topics: true } : {}),
      rate_limit: rate,
    },
  };
}
