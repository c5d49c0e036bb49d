/**
 * Visitor geography from a standard MaxMind database (GeoIP2/GeoLite2 City or Country, `SVC_GEOIP_DB`),
 * read with the `maxmind` package. Fields used (English names): `country.names.en` → geoIP_country,
 * `subdivisions[0].names.en` (the largest subdivision) → geoIP_state, `city.names.en` → geoIP_city.
 * A Country database has only the country. Where the database knows nothing, the network's own geo stays.
 */
import { readFileSync } from 'node:fs';
import { type CityResponse, Reader } from 'maxmind';

export interface Geo {
  country: string;
  state: string;
  city: string;
}

export interface GeoIp {
  /** `ip`: a normalised dotted quad. Empty strings for what the database does not say; null when not found. */
  lookup(ip: string): Geo | null;
}

/** A broken database is reported at most this often (every lookup of its broken part would repeat it). */
const REPORT_EVERY_MS = 60_000;

/**
 * `onError`: a lookup the database cannot answer (a corrupt or truncated file decodes to garbage,
 * throws, or recurses without end): reported, and answered as "not found", so the network's own geo
 * stays — a broken optional overlay never turns an identification into a 500.
 */
export function openGeoIp(file: string, onError: (message: string) => void = () => {}): GeoIp {
  let reader: Reader<CityResponse>;
  try {
    reader = new Reader<CityResponse>(readFileSync(file));
  } catch (e) {
    throw new Error(`SVC_GEOIP_DB ${file}: not a readable MaxMind database (${(e as Error).message})`);
  }
  let reportedAt = -Infinity;
  const type = reader.metadata.databaseType;
  if (!/City|Country/i.test(type)) throw new Error(`SVC_GEOIP_DB ${file}: expected a GeoIP2/GeoLite2 City or Country database, found ${type}`);
  // An IPv4-only database has no answer for an IPv6 visitor (the reader would walk its first 32 bits as an IPv4 address).
  const ipv4Only = reader.metadata.ipVersion === 4;
  return {
    lookup(ip) {
      if (ipv4Only && ip.includes(':')) return null;
      try {
        const r = reader.get(ip);
        if (!r?.country) return null;
        return { country: r.country.names?.en ?? '', state: r.subdivisions?.[0]?.names?.en ?? '', city: r.city?.names?.en ?? '' };
      } catch (e) {
        const now = Date.now();
        if (now - reportedAt >= REPORT_EVERY_MS) {
          reportedAt = now;
          // No address in the message: it would put visitors' IPs in the error log.
          onError(`SVC_GEOIP_DB ${file} is damaged (${(e as Error).message}): its lookups answer with the network's own geo until it is replaced`);
        }
        return null;
      }
    },
  };
}

type GeoFields = { geoIP_country: string | null; geoIP_state: string | null; geoIP_city: string | null };

/**
 * The geoIP_* fields with the database's answer laid over the network's: the database wins where it has
 * a value; a state or city it lacks is taken from the network only when both name the same country (a
 * network's city in another country would contradict the database). `none` is the response's "no value".
 */
export function overlayGeo<T extends GeoFields>(fields: T, geo: Geo | null, none: '' | null): T {
  if (!geo?.country) return fields;
  const sameCountry = fields.geoIP_country === geo.country;
  return {
    ...fields,
    geoIP_country: geo.country,
    geoIP_state: geo.state || (sameCountry ? fields.geoIP_state : none) || none,
    geoIP_city: geo.city || (sameCountry ? fields.geoIP_city : none) || none,
  };
}
