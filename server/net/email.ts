/**
 * Reading a lead's email address and company domain: syntax, normalisation, and whether a domain is a
 * free-mail provider (gmail.com, yahoo.co.uk …), which identifies no company.
 *
 * The free-mail list is the `email-providers` package (~8.7k domains, kept up to date from
 * goware/emailproviders). The issue asked for `free-email-domains` "or an equally maintained list":
 * that package cannot be installed here (its postinstall step downloads the list), so we use this one.
 */
import { domainToASCII } from 'node:url';
import freeMailDomains from 'email-providers/all.json' with { type: 'json' };
import { z } from 'zod';
import { normaliseDomain } from '../../data/catalog/keys.ts';

const FREE_MAIL = new Set((freeMailDomains as string[]).map((d) => d.toLowerCase()));

/** zod's email check (no quoted local parts, no IP literals, a dotted domain with a letter TLD). */
const EmailSyntax = z.email();

/** A host name of dotted labels (letters, digits, inner hyphens), ≤ 253 characters, alphabetic TLD. */
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export interface LeadEmail {
  /** Trimmed, domain lower-cased: `Jane.Doe@northwind.example`. */
  address: string;
  /** Lower-case domain: `northwind.example`. */
  domain: string;
}

/** The address split and normalised, or null when it is not a usable email address. */
export function parseEmail(raw: string): LeadEmail | null {
  const trimmed = raw.trim();
  if (!EmailSyntax.safeParse(trimmed).success) return null;
  const at = trimmed.lastIndexOf('@');
  const domain = trimmed.slice(at + 1).toLowerCase();
  if (!isHostname(domain)) return null;
  return { address: `${trimmed.slice(0, at)}@${domain}`, domain };
}

/**
 * A caller's domain or website (`https://www.Northwind.example/about`) as the catalog keys it
 * (`northwind.example`), or null when what remains is not a host name.
 */
export function parseDomain(raw: string): string | null {
  const d = normaliseDomain(raw);
  if (d === '' || /[\s@]/.test(d)) return null;
  // Unicode names are checked in their ASCII (punycode) form; the lookup uses the normalised spelling.
  const ascii = domainToASCII(d.replace(/:\d+$/, ''));
  return ascii && isHostname(ascii) ? d.replace(/:\d+$/, '') : null;
}

function isHostname(d: string): boolean {
  return HOSTNAME.test(domainToASCII(d) || d);
}

/** True for free-mail providers and their subdomains (`mail.yahoo.co.uk`). */
export function isFreeMailDomain(domain: string): boolean {
  const labels = domain.toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    if (FREE_MAIL.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}
