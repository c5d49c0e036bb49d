/**
 * The syntax of an allowed-domain entry (web tags and browser-used identification tokens), in one place:
 * the CLI, the admin API, the console's forms and customers.json all validate through this module.
 *
 * An entry is one of
 *   - a host name with at least two labels (`www.example.com`), international names allowed;
 *   - `localhost`;
 *   - an IPv4 literal (`127.0.0.1`), or an IPv6 literal, bare or in brackets (`::1`, `[::1]`: stored bare,
 *     in the URL parser's compressed form, as a browser's Origin names it less its brackets);
 *   - `*.` + a domain with at least two labels (`*.example.com`: any subdomain, not the apex).
 * Anything else — `*`, `*.com`, lists (`a.com, b.com`), URLs, paths, ports — is refused with a message
 * naming the entry. Entries are stored lower-case and in punycode (`bücher.example` →
 * `xn--bcher-kva.example`), because that is the form browsers put in `Origin`, so matching stays a plain
 * string comparison.
 *
 * In the neutral core (imports zod only): the web tags of customers.json (./customer-records.ts) and the
 * server's token and tag records validate through it. No Node built-ins: the console's forms run this in
 * the browser. The WHATWG URL parser's host parsing is the same domain-to-ASCII (UTS #46) as node's
 * `url.domainToASCII`, and it is what browsers apply before they send an Origin.
 */
import { z } from 'zod';

export type AllowedDomainResult = { ok: true; value: string } | { ok: false; message: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

/** Punycode form of a host name, or null when the URL parser refuses it. */
function domainToASCII(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}
/** The compressed form of an IPv6 literal (no brackets), or null when the URL parser refuses it. */
function ipv6Literal(text: string): string | null {
  const host = domainToASCII(`[${text}]`);
  return host ? host.slice(1, -1) : null;
}

const MAX_LENGTH = 253;

/** Validates one entry and returns its stored form (lower-case, punycode), or why it is refused. */
export function parseAllowedDomain(entry: string): AllowedDomainResult {
  const refuse = (why: string): AllowedDomainResult => ({ ok: false, message: `allowed domain "${entry}": ${why}` });
  const raw = entry.trim().toLowerCase();
  if (raw === '') return refuse('empty entry');
  if (/[\s,;]/.test(raw)) return refuse('one domain per entry (lists are not allowed)');
  if (raw.includes('://') || /[/?#@\\%]/.test(raw)) return refuse('give the host only, not a URL or a path (e.g. www.example.com)');
  const v6 = /^\[?([0-9a-f:.]+)\]?$/.exec(raw);
  if (v6 && v6[1].split(':').length > 2) {
    const literal = ipv6Literal(v6[1]);
    return literal ? { ok: true, value: literal } : refuse('not a valid IPv6 address');
  }
  if (raw.includes(':') || raw.startsWith('[')) return refuse('give the host only, without a port (an IPv6 literal as ::1 or [::1])');
  const wildcard = raw.startsWith('*.');
  const body = (wildcard ? raw.slice(2) : raw).replace(/\.$/, '');
  if (body.includes('*')) return refuse('a wildcard is only allowed as a leading "*." (e.g. *.example.com)');
  if (!wildcard) {
    if (body === 'localhost') return { ok: true, value: body };
    if (IPV4.test(body)) return { ok: true, value: body };
  }
  // A numeric last label is an IPv4 address in a short or odd form (`1.2.3`, `0x7f.1`), which the URL
  // parser would silently rewrite: refuse it instead.
  if (/^(\d+|0x[0-9a-f]*)$/.test(body.split('.').at(-1)!)) return refuse('not a valid host name or IPv4 address');
  const ascii = domainToASCII(body);
  if (!ascii || ascii.length > MAX_LENGTH) return refuse('not a valid host name');
  const labels = ascii.split('.');
  if (!labels.every((l) => LABEL.test(l))) return refuse('not a valid host name (letters, digits and hyphens between dots)');
  if (labels.length < 2) {
    return refuse(
      wildcard
        ? 'a wildcard needs a domain with at least two labels (e.g. *.example.com, not *.com)'
        : 'a host needs at least two labels (e.g. www.example.com), or use localhost',
    );
  }
  return { ok: true, value: wildcard ? '*.' + ascii : ascii };
}

// The zod forms are built by functions called with a pure annotation, so a bundle that uses only
// parseAllowedDomain (the console) drops them, and zod with them. They refine and overwrite rather than
// transform, so the schemas stay describable as JSON Schema (a list of strings) for API docs.

/** zod form of one entry: validates and yields the stored form. */
export const AllowedDomain = /* @__PURE__ */ allowedDomainSchema();

/** A list of entries, de-duplicated after normalisation (`Example.com` and `example.com` are one entry). */
export const AllowedDomains = /* @__PURE__ */ allowedDomainsSchema(0);

/** The same with at least one entry (web tags). */
export const RequiredAllowedDomains = /* @__PURE__ */ allowedDomainsSchema(1);

function allowedDomainSchema() {
  return z
    .string()
    .superRefine((entry, ctx) => {
      const r = parseAllowedDomain(entry);
      if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
    })
    .overwrite((entry) => {
      const r = parseAllowedDomain(entry);
      return r.ok ? r.value : entry;
    });
}

function allowedDomainsSchema(min: number) {
  return z
    .array(allowedDomainSchema())
    .min(min, 'a web tag needs at least one allowed domain')
    .max(100)
    .overwrite((list) => [...new Set(list)]);
}

/** Validates a list typed by a person; the first refused entry's message, or the stored forms. */
export function parseAllowedDomains(entries: readonly string[]): { ok: true; value: string[] } | { ok: false; message: string } {
  const out: string[] = [];
  for (const e of entries) {
    const r = parseAllowedDomain(e);
    if (!r.ok) return r;
    if (!out.includes(r.value)) out.push(r.value);
  }
  return { ok: true, value: out };
}
