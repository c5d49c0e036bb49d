import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasFirmographics, readFirmographics } from './firmographics.ts';
import { ImportMapping } from './mapping.ts';
import { FIRMOGRAPHICS_FIXTURE } from './test-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-firmographics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
const noMapping = ImportMapping.parse({});

describe('firmographics CSV', () => {
  it('reads our column names, normalising domains', async () => {
    const rows = await readFirmographics(FIRMOGRAPHICS_FIXTURE, noMapping);
    expect(rows.map((r) => r.domain)).toEqual(['health.mil', 'bevtec.se', 'lariatsoftware.com', 'northwind.example']);
    expect(rows[1]).toMatchObject({ name: 'Bevtec AB', employee_count: '85', country_iso_code: 'SE', naics: '333415' });
    expect(hasFirmographics(rows[1])).toBe(true);
  });

  it('reads a vendor file through the column mapping', async () => {
    const f = file('vendor.csv', 'Website,Company Name,Employees,Sector,ISO\nhttps://www.Globex.example/about,Globex Corp,"1200",Energy,us\n');
    const mapping = ImportMapping.parse({
      firmographics: { columns: { domain: 'Website', name: 'Company Name', employee_count: 'Employees', industry: 'Sector', country_iso_code: 'ISO' } },
    });
    const [row] = await readFirmographics(f, mapping);
    expect(row).toMatchObject({ domain: 'globex.example', name: 'Globex Corp', employee_count: '1200', industry: 'Energy', country_iso_code: 'US', sic: '' });
  });

  it('errors name the row, the field and the vendor column', async () => {
    const mapping = ImportMapping.parse({ firmographics: { columns: { employee_count: 'Employees' } } });
    await expect(readFirmographics(file('bad-count.csv', 'domain,name,Employees\na.example,A,10\nb.example,B,"1,200"\n'), mapping)).rejects.toThrow(
      /bad-count\.csv: row 2: employee_count \(column "Employees"\): a whole number.*got "1,200"/,
    );
    await expect(readFirmographics(file('bad-domain.csv', 'domain,name\nnot a domain,A\n'), noMapping)).rejects.toThrow(/row 1: domain: required, a domain/);
    await expect(readFirmographics(file('no-name.csv', 'domain,name\na.example,\n'), noMapping)).rejects.toThrow(/row 1: name: required/);
    await expect(readFirmographics(file('bad-iso.csv', 'domain,name,country_iso_code\na.example,A,USA\n'), noMapping)).rejects.toThrow(
      /row 1: country_iso_code: a two-letter/,
    );
    await expect(readFirmographics(file('bad-sic.csv', 'domain,name,sic\na.example,A,73X2\n'), noMapping)).rejects.toThrow(/row 1: sic: SIC code/);
  });

  it('one company per domain; a missing key column is named with a hint', async () => {
    await expect(readFirmographics(file('dup.csv', 'domain,name\na.example,A\nwww.A.example,A again\n'), noMapping)).rejects.toThrow(
      /row 2: domain: a\.example is already row 1/,
    );
    await expect(readFirmographics(file('nodomain.csv', 'Website,name\na.example,A\n'), noMapping)).rejects.toThrow(
      /no column "domain" for domain .*--mapping/,
    );
  });
});
