/**
 * Form fill: which answer field an input gets. Explicit: `data-svc-fill="company.name"` on the input.
 * Mapped: inputs inside an element marked `data-svc-fill` with no value (usually the `<form>`) are
 * matched by their `name` (else `id`), lower-cased with everything but letters and digits removed:
 *
 *   company, companyname, organization, organisation → company.name
 *   website                                          → company.domain
 *   industry                                         → company.industry
 *   country                                          → company.country
 *   …employees (employees, numemployees, numberofemployees) → company.employee_count
 *   …revenue (revenue, annualrevenue)                → company.annual_revenue
 *
 * Personal fields (the visitor's own name, email, phone, address, city) are never mapped: a company's
 * switchboard or headquarters is not the visitor's.
 */
const MAP: Record<string, string> = {
  __proto__: null as any, // no inherited keys ("constructor" is no field)
  company: 'name',
  companyname: 'name',
  organization: 'name',
  website: 'domain',
  industry: 'industry',
  country: 'country',
  employees: 'employee_count',
  numemployees: 'employee_count',
  numberofemployees: 'employee_count',
  annualrevenue: 'annual_revenue',
};

/** The answer path a form control named `name` is filled from, or "" (paths fall back to `company`). */
export const fillPath = (name: string): string => MAP[name.toLowerCase().replace(/[^a-z0-9]/g, '')] || '';
