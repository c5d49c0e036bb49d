/**
 * Form fill: which answer field a form control gets. Explicit: `data-svc-fill="company.name"` on the
 * control. Mapped: controls inside an element marked `data-svc-fill` with no value (usually the
 * `<form>`) are matched by their `name` (else `id`), lower-cased with everything but letters and
 * digits removed:
 *
 *   company, companyname, organization                → company.name
 *   website                                           → company.domain
 *   industry                                          → company.industry
 *   country                                           → company.country
 *   employees, numemployees, numberofemployees        → company.employee_count
 *   annualrevenue                                     → company.annual_revenue
 *
 * Personal fields (the visitor's own name, email, phone, address, city) are never mapped: a company's
 * switchboard or headquarters is not the visitor's. Pure.
 */
/** The answer path a form control named `name` is filled from, or "" (paths fall back to `company`). */
export function fillPath(name: string): string {
  // (declared here, not in the module: terser writes it where it is read, one top-level name less;
  // '' is the field of the same name: 4 B gzip less than the name written twice)
  const FIELD_PATHS: Record<string, string> = {
    company: 'name',
    companyname: 'name',
    organization: 'name',
    website: 'domain',
    industry: '',
    country: '',
    employees: 'employee_count',
    numemployees: 'employee_count',
    numberofemployees: 'employee_count',
    annualrevenue: 'annual_revenue',
  };
  const key = name.toLowerCase().replace(/[\W_]/g, ''); // letters and digits only
  return FIELD_PATHS.hasOwnProperty(key) ? FIELD_PATHS[key] || key : ''; // (own keys only: not "constructor")
}
