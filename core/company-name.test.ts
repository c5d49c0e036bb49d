import { describe, expect, it } from 'vitest';
import { displayName } from './company-name.ts';

describe('a company display name drops the legal form', () => {
  it.each([
    ['Lariat Software, Inc.', 'Lariat Software'],
    ['Lariat Software Inc', 'Lariat Software'],
    ['Globex Corporation', 'Globex'],
    ['Initech LLC', 'Initech'],
    ['Siemens AG', 'Siemens'],
    ['Bosch GmbH', 'Bosch'],
    ['Tesco PLC', 'Tesco'],
    ['Acme Ltd.', 'Acme'],
    ['Umbrella Limited', 'Umbrella'],
    ['Banco Santander, S.A.', 'Banco Santander'],
    ['Banco Santander S. A.', 'Banco Santander'],
    ['Fiat S.p.A.', 'Fiat'],
    ['Philips N.V.', 'Philips'],
    ['Maersk A/S', 'Maersk'],
    ['Comarch Sp. z o.o.', 'Comarch'],
    ['Grab Holdings Pte. Ltd.', 'Grab Holdings'],
    ['Volkswagen GmbH & Co. KG', 'Volkswagen'],
    ['Procter & Gamble Co.', 'Procter & Gamble'],
    ['Société Générale S.A.', 'Société Générale'],
    ['LARIAT SOFTWARE INC', 'LARIAT SOFTWARE'],
  ])('%s → %s', (legal, short) => expect(displayName(legal)).toBe(short));
});

describe('a company display name keeps what people say', () => {
  it.each([
    ['Johnson & Johnson', 'Johnson & Johnson'],
    ['AT&T Inc.', 'AT&T'],
    ['The Boston Consulting Group', 'The Boston Consulting Group'],
    ['The Walt Disney Company', 'The Walt Disney Company'],
    ['Marks and Spencer', 'Marks and Spencer'],
    ['Acme (UK) Ltd', 'Acme (UK)'],
    ['Inc.', 'Inc.'],
    ['LLC Inc', 'LLC'],
    ['Co', 'Co'],
    ['  Tiny Co  ', 'Tiny'],
    ['Wayne Enterprises', 'Wayne Enterprises'],
    ['X A', 'X A'],
    ['', ''],
  ])('%j → %j', (legal, short) => expect(displayName(legal)).toBe(short));
});
