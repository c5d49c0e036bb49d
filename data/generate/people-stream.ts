/**
 * The people side of generation (people.csv and engagement.csv), fed one company at a time.
 *
 * A company reaches it as one line of text (`encodePeopleJob`), whether it runs in the generating thread or in
 * a worker thread (`people-pipeline.ts`): one code path, so both give the same bytes. It draws from its own
 * random streams (derived from the seed), so running it elsewhere changes nothing either.
 */
import { engagementFor } from './activity.ts';
import type { Company, EmailPattern } from './companies.ts';
import type { RowSink } from './csv-writer.ts';
import { ANCHORS } from './customers.ts';
import { type PeopleCompany, PeopleFactory } from './people.ts';
import { Rng } from './random.ts';
import { type City, COUNTRIES, type Place } from './vocabulary/geography.ts';
import { SIZE_TIERS } from './vocabulary/sizes.ts';

/** Everything people generation needs to know about a company, as one tab-separated line. */
export function encodePeopleJob(c: Company, anchor: number | undefined): string {
  const offices = c.offices.map((o) => PLACE_CODE.get(o.city)!).join(' ');
  const institution = c.sub.naming !== undefined && c.sub.naming !== 'business' ? 1 : 0;
  return `${c.id}\t${c.domain}\t${c.extraDomains.join(' ')}\t${c.tier.index}\t${c.employees}\t${c.emailPattern}\t${institution}\t${anchor ?? -1}\t${offices}`;
}

export function decodePeopleJob(line: string): { company: PeopleCompany; anchor: number } {
  const [id, domain, extra, tier, employees, pattern, institution, anchor, offices] = line.split('\t');
  return {
    company: {
      id,
      domain,
      extraDomains: extra ? extra.split(' ') : [],
      tier: SIZE_TIERS[Number(tier)],
      employees: Number(employees),
      emailPattern: pattern as EmailPattern,
      institution: institution === '1',
      offices: offices.split(' ').map((code) => PLACE_BY_CODE.get(code)!),
    },
    anchor: Number(anchor),
  };
}

const PLACE_CODE = new Map<City, string>();
const PLACE_BY_CODE = new Map<string, Place>();
for (const [ci, country] of COUNTRIES.entries()) {
  for (const [si, state] of country.states.entries()) {
    for (const [ti, city] of state.cities.entries()) {
      const code = `${ci}.${si}.${ti}`;
      PLACE_CODE.set(city, code);
      PLACE_BY_CODE.set(code, { country, state, city });
    }
  }
}

export interface PeopleStreamOptions {
  seed: string;
  /** Mixed into LinkedIn URL suffixes. */
  salt: number;
}

export class PeopleStream {
  private readonly factory: PeopleFactory;
  private readonly activity: Rng;
  engagementRows = 0;

  constructor(
    opts: PeopleStreamOptions,
    private readonly people: RowSink,
    private readonly engagement: RowSink,
  ) {
    this.factory = new PeopleFactory(new Rng(`${opts.seed}#people`), opts.salt);
    this.activity = new Rng(`${opts.seed}#engagement`);
  }

  get peopleRows(): number {
    return this.factory.count;
  }

  add(line: string): void {
    const { company, anchor } = decodePeopleJob(line);
    const wishes = anchor >= 0 ? ANCHORS[anchor].wishes : [];
    const staff = this.factory.make(company, this.people, wishes);
    for (let k = 0; k < staff.length; k++) {
      this.engagementRows += engagementFor(this.activity, staff[k].id, this.engagement, k < wishes.length);
    }
  }
}
