/**
 * What may never reach a log line: API token secrets, admin tokens, full email addresses. Applied to every
 * message string by the logger's hook, so a careless `log.error(…)` cannot leak one either.
 */

/** Also URL-encoded (`%40`), as in a logged URL. */
const EMAIL = /([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*?(@|%40)([A-Za-z0-9.-]+\.[A-Za-z]{2,})/gi;
/** Token secrets are 40 alphanumerics (server/auth/token-secret.ts); admin tokens are at least 20 characters. */
const LONG_SECRET = /\b[A-Za-z0-9_-]{20,}\b/g;
const BEARER = /\b(Token|Bearer)\s+\S+/gi;

/** `jane.doe@example.com` → `j***@example.com`: enough to tell domains apart, not to identify a person. */
export function maskEmails(text: string): string {
  return text.replace(EMAIL, '$1***$2$3');
}

/** A long opaque string (a secret, or a 20+ character admin token) keeps its first 4 characters only. */
export function maskSecrets(text: string): string {
  return text.replace(BEARER, '$1 ***').replace(LONG_SECRET, (s) => (/^\d+$/.test(s) || /^[0-9a-f-]{36}$/i.test(s) ? s : `${s.slice(0, 4)}***`));
}

export function mask(text: string): string {
  return maskSecrets(maskEmails(text));
}
