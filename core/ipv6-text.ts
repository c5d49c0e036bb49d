/**
 * RFC 5952 text of an IPv6 address given as its eight 16-bit groups: lower case, no leading zeros, the
 * longest run of two or more zero groups (the first of equals) as `::`. One spelling for the server (a
 * visitor's address, its /64 rate-limit key) and the generator (the sample data's IPv6 networks).
 */
export function ipv6GroupsText(g: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let k = 0; k < 8; ) {
    if (g[k] !== 0) {
      k++;
      continue;
    }
    let e = k;
    while (e < 8 && g[e] === 0) e++;
    if (e - k > bestLen) {
      best = k;
      bestLen = e - k;
    }
    k = e;
  }
  const hex = (from: number, to: number): string =>
    g
      .slice(from, to)
      .map((x) => x.toString(16))
      .join(':');
  return best < 0 ? hex(0, 8) : `${hex(0, best)}::${hex(best + bestLen, 8)}`;
}
