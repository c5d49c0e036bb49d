/**
 * Rate limits count in fixed one-minute windows: a test that fills a limit and then expects a 429 must not
 * straddle a minute boundary (the new window starts at zero), so it starts far enough from the edge.
 */
export async function awayFromWindowEdge(marginMs = 20_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 200));
}
