/** Weighted tables over the vocabulary (countries, industries, size tiers, places, naming cultures), built once. */
import { type Rng, Weighted } from './random.ts';
import { COUNTRIES, type Country, type Place } from './vocabulary/geography.ts';
import { INDUSTRIES, type Industry, type Subindustry } from './vocabulary/industries.ts';
import type { Culture } from './vocabulary/people-names.ts';
import { SIZE_TIERS } from './vocabulary/sizes.ts';

class Tables {
  readonly countries = new Weighted(COUNTRIES.map((c) => [c, c.weight] as const));
  readonly industries = new Weighted(INDUSTRIES.map((i) => [i, i.weight] as const));
  readonly tiers = new Weighted(SIZE_TIERS.map((t) => [t, t.weight] as const));
  private readonly subs = new Map<Industry, Weighted<Subindustry>>();
  private readonly states = new Map<Country, Weighted<Country['states'][number]>>();
  private readonly cities = new Map<Country['states'][number], Weighted<Place['city']>>();
  private readonly cultures = new Map<Country, Weighted<Culture>>();

  sub(industry: Industry): Weighted<Subindustry> {
    let w = this.subs.get(industry);
    if (!w) this.subs.set(industry, (w = new Weighted(industry.subindustries.map((s) => [s, s.weight ?? 1] as const))));
    return w;
  }

  place(rng: Rng, country: Country): Place {
    let sw = this.states.get(country);
    if (!sw) this.states.set(country, (sw = new Weighted(country.states.map((s) => [s, s.weight] as const))));
    const state = sw.draw(rng);
    let cw = this.cities.get(state);
    if (!cw) this.cities.set(state, (cw = new Weighted(state.cities.map((c) => [c, c.weight ?? 1] as const))));
    return { country, state, city: cw.draw(rng) };
  }

  culture(rng: Rng, country: Country): Culture {
    let w = this.cultures.get(country);
    if (!w) this.cultures.set(country, (w = new Weighted(country.cultures)));
    return w.draw(rng);
  }
}

export const TABLES = new Tables();
