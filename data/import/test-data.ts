/** MaxMind's official test databases (../shared/reference/maxmind-db/test-data/) and our fixtures, for tests. */
import { fileURLToPath } from 'node:url';
import { REFERENCE_DIR as REFERENCE } from '../mmdb/test-support.ts';

export const MAXMIND_TEST_DB = {
  enterprise: `${REFERENCE}test-data/GeoIP2-Enterprise-Test.mmdb`,
  isp: `${REFERENCE}test-data/GeoIP2-ISP-Test.mmdb`,
  domain: `${REFERENCE}test-data/GeoIP2-Domain-Test.mmdb`,
  asn: `${REFERENCE}test-data/GeoLite2-ASN-Test.mmdb`,
  city: `${REFERENCE}test-data/GeoIP2-City-Test.mmdb`,
} as const;

export const MAXMIND_SOURCE_JSON = (name: string): string => `${REFERENCE}source-data/${name}.json`;

export const FIRMOGRAPHICS_FIXTURE = fileURLToPath(new URL('./fixtures/firmographics.csv', import.meta.url));
