import { describe, expect, it } from 'vitest';
import { fillPath } from './fill.ts';

describe('fillPath: the documented mapping of common form field names', () => {
  it.each([
    ['company', 'name'],
    ['Company', 'name'],
    ['company_name', 'name'],
    ['companyName', 'name'],
    ['organization', 'name'],
    ['website', 'domain'],
    ['Website', 'domain'],
    ['industry', 'industry'],
    ['Industry', 'industry'],
    ['country', 'country'],
    ['NumberOfEmployees', 'employee_count'],
    ['numemployees', 'employee_count'],
    ['employees', 'employee_count'],
    ['AnnualRevenue', 'annual_revenue'],
    ['annual_revenue', 'annual_revenue'],
  ])('%s → %s', (name, path) => expect(fillPath(name)).toBe(path));

  it.each(['name', 'firstname', 'email', 'phone', 'address', 'city', 'zip', 'message', '', 'constructor', 'toString', '__proto__'])(
    "never maps the visitor's own field %j",
    (name) => expect(fillPath(name)).toBe(''),
  );
});
