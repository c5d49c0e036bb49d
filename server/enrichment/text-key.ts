/** How the enrichment and people routes compare caller text with catalog text: case, accents, punctuation and spacing ignored. */
export function textKey(s: string | undefined | null): string {
  return (s ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
