/** Intent topics (third-party research signals) and first-party engagement activities. */
import type { Rng } from '../random.ts';

export const INTENT_TOPICS = [
  'customer data platform',
  'marketing automation',
  'account based marketing',
  'predictive analytics',
  'sales intelligence',
  'data enrichment',
  'cloud security',
  'crm',
  'identity resolution',
  'lead scoring',
  'intent data',
  'sales engagement',
  'conversational marketing',
  'web personalization',
  'customer journey analytics',
  'data warehouse',
  'data governance',
  'master data management',
  'business intelligence',
  'marketing attribution',
  'email marketing',
  'content management system',
  'digital asset management',
  'endpoint security',
  'zero trust',
  'identity and access management',
  'siem',
  'erp',
  'supply chain management',
  'hr software',
  'payroll',
  'applicant tracking',
  'collaboration software',
  'video conferencing',
  'cloud migration',
  'kubernetes',
  'devops',
  'observability',
  'api management',
  'ecommerce platform',
  'payment processing',
  'fraud detection',
  'customer experience',
  'contact center software',
  'data privacy',
  'consent management',
  'product analytics',
  'revenue operations',
] as const;

/** Topics companies of an industry research more often than others. */
export const INDUSTRY_TOPICS: Record<string, string[]> = {
  Software: ['cloud security', 'kubernetes', 'devops', 'observability', 'product analytics', 'api management', 'customer data platform', 'sales engagement'],
  'Financial Services': ['fraud detection', 'identity and access management', 'data governance', 'zero trust', 'crm', 'data privacy', 'payment processing'],
  Healthcare: ['data privacy', 'endpoint security', 'erp', 'customer experience', 'contact center software', 'identity and access management'],
  Manufacturing: ['erp', 'supply chain management', 'master data management', 'business intelligence', 'cloud migration'],
  Retail: ['ecommerce platform', 'payment processing', 'web personalization', 'customer data platform', 'email marketing', 'marketing attribution'],
  Education: ['collaboration software', 'video conferencing', 'applicant tracking', 'content management system', 'cloud migration'],
  Telecommunications: ['customer experience', 'contact center software', 'observability', 'fraud detection', 'cloud security'],
  Media: ['digital asset management', 'content management system', 'web personalization', 'consent management', 'marketing attribution'],
  Transportation: ['supply chain management', 'erp', 'business intelligence', 'payroll'],
  Energy: ['erp', 'endpoint security', 'zero trust', 'business intelligence'],
  'Professional Services': ['crm', 'collaboration software', 'hr software', 'applicant tracking', 'account based marketing', 'sales intelligence'],
  Government: ['data privacy', 'cloud migration', 'identity and access management', 'siem'],
};

export const ENGAGEMENT_ACTIVITIES: readonly (readonly [string, number, number])[] = [
  // [activity, weight, max count]
  ['email_open', 34, 25],
  ['page_view', 30, 60],
  ['email_click', 15, 8],
  ['form_fill', 8, 3],
  ['webinar', 7, 2],
  ['meeting', 6, 3],
];

/** The fixed "now" of the sample data: observed_at dates fall in the 90 days before it. */
export const DATA_NOW = Date.UTC(2026, 10, 1);
const DAY_MS = 86_400_000;

/** ISO dates `daysAgo` days before DATA_NOW, precomputed (Date.UTC/toISOString are locale-independent). */
const DATES: string[] = Array.from({ length: 91 }, (_, d) => new Date(DATA_NOW - d * DAY_MS).toISOString().slice(0, 10));

/** A date 1–maxDaysAgo (≤ 90) days before DATA_NOW, more often recent than old. */
export function observedAt(rng: Rng, maxDaysAgo = 90): string {
  const u = rng.float();
  return DATES[1 + Math.floor(u * (0.35 + 0.65 * u) * maxDaysAgo)];
}

export function daysAgo(d: number): string {
  return DATES[d];
}
