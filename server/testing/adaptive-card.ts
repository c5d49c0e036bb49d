/**
 * Checks an Adaptive Card against the Adaptive Card object model of Microsoft's `adaptivecards` package
 * (its browser bundle loads in Node; only parsing and serialization are used, no rendering): the card is
 * parsed, its parse and validation events are the problems, and what the package serializes back must be
 * the card as sent — an unknown property, a misspelled element type or enum value would be dropped or
 * changed there. Teams' own `msteams` extension is outside the schema and left out of the comparison.
 * (Checked: the package's schema file is not shipped in it, and its ESM build does not load in Node.)
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface AcModule {
  AdaptiveCard: new () => {
    parse(json: unknown, ctx: unknown): void;
    toJSON(ctx?: unknown): unknown;
    validateProperties(): { validationEvents: { message: string }[] };
  };
  SerializationContext: new () => { eventCount: number; getEventAt(i: number): { message: string } };
  GlobalSettings: { setTabIndexAtCardRoot?: boolean };
}

let ac: AcModule | null = null;
function load(): AcModule {
  // The package's ESM build imports its files without extensions (not loadable by Node); its UMD bundle is.
  ac ??= require('adaptivecards/dist/adaptivecards.js') as AcModule;
  return ac;
}

const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, x]) => [k, sorted(x)]),
        )
      : v;

/** The problems the package finds with the card; [] for a valid one. */
export function adaptiveCardProblems(card: Record<string, unknown>): string[] {
  const { AdaptiveCard, SerializationContext } = load();
  const parsed = new AdaptiveCard();
  const ctx = new SerializationContext();
  parsed.parse(card, ctx);
  const problems: string[] = [];
  for (let i = 0; i < ctx.eventCount; i++) problems.push(`parse: ${ctx.getEventAt(i).message}`);
  for (const e of parsed.validateProperties().validationEvents) problems.push(`validate: ${e.message}`);
  // The package writes its own newest version back: the version is checked apart, as one the schema knows.
  const { msteams: _teams, version, ...schemaPart } = card;
  if (typeof version !== 'string' || !/^1\.[0-6]$/.test(version)) problems.push(`version: ${String(version)} is not an Adaptive Card version (1.0–1.6)`);
  const { version: _written, ...back } = parsed.toJSON(new SerializationContext()) as Record<string, unknown>;
  if (JSON.stringify(sorted(back)) !== JSON.stringify(sorted(schemaPart)))
    problems.push(`round trip: the package serializes the card differently:\n${JSON.stringify(back)}\nvs\n${JSON.stringify(schemaPart)}`);
  return problems;
}
