/**
 * networks.csv: the networks of each company (about five on average, more for big companies) and the
 * non-company networks around them — ISPs (big), hosting providers (mid-sized), bots (small).
 *
 * Deliberate nesting, as in real data: small companies' static blocks inside their country's ISP; a big
 * company's branch /24 inside its own /16–/20; another company's branch /27 inside a company's /22;
 * bots inside hosting ranges and ISP space. Now and then a row is repeated later (same network, maybe
 * another confidence or owner): the later row wins.
 *
 * "Protected" networks — the first ISP, hosting and bot networks, and one network of each company the demo
 * customer's configuration names — never get anything nested inside them and are never repeated, so they
 * answer for themselves whatever the seed (see `DemoNetwork`).
 *
 * IPv6 (./ipv6-space.ts, a random stream of its own: the IPv4 rows are the same with or without it): most
 * ISPs and hosting providers also get an IPv6 block, bots in hosting space sometimes a /64, and a share of
 * companies that grows with their size an IPv6 network — a static /56 inside their ISP's /32 for small
 * ones, their own /48 (a /44 with a branch /48 inside for the biggest) for the others. A company's IPv6
 * rows come after its IPv4 rows, so the first network of each kind in the file stays IPv4. Each protected
 * company network has a protected IPv6 /48 beside it (`DemoNetwork.ipv6`).
 *
 * Privacy networks (`privacy` column; a random stream of their own again, and never a carved share: the
 * other rows are the same with or without them): now and then a VPN exit (/28–/24, sometimes an IPv6
 * /64) or a relay egress (/26–/24, mostly with IPv6 /64s) in a hosting block, a Tor exit or a public proxy
 * (/32) in hosting or ISP space, a residential proxy (/32) in an ISP. They sit in the part of a block that
 * nothing is carved from (`Container.limit` to its end), so they never cover a company's or a bot's
 * network. `hosting` is not drawn: every hosting network already answers `privacy: hosting`.
 */
import type { PrivacyReason } from '../../core/vocabulary.ts';
import type { Confidence } from '../sources/schema.ts';
import type { Company } from './companies.ts';
import type { RowSink } from './csv-writer.ts';
import { Container, cidr, Ipv4Space, Pool, range, rangeInside, sizeOf } from './ip-space.ts';
import { Container6, cidr6, Ipv6Space, ipv6Text, registryOf, span64 } from './ipv6-space.ts';
import { type Rng, Weighted } from './random.ts';
import { TABLES } from './tables.ts';
import { COUNTRIES, DATA_CENTRES, findPlace, type Place } from './vocabulary/geography.ts';

/** A network row in column order: network, kind, company_id, confidence, country, state, city, privacy (blank when absent). */
export type NetworkCells = [string, string, string, Confidence, string, string, string, (PrivacyReason | '')?];

/** A network that answers for itself, and an address inside it. */
export interface DemoNetwork {
  network: string;
  ip: string;
  kind: string;
  company_id: string;
  confidence: Confidence;
  /** A protected company network's IPv6 /48, and an address inside it. */
  ipv6?: { network: string; ip: string };
}

const conf = (vh: number, h: number, m: number, l: number) =>
  new Weighted<Confidence>([
    ['Very High', vh],
    ['High', h],
    ['Moderate', m],
    ['Low', l],
  ]);

const CONFIDENCE = {
  large: conf(50, 42, 8, 0),
  c24: conf(35, 48, 14, 3),
  medium: conf(20, 45, 27, 8),
  small: conf(8, 32, 38, 22),
  ispTenant: conf(5, 25, 45, 25),
  landlordTenant: conf(0, 40, 45, 15),
  protected: conf(60, 40, 0, 0),
  isp: conf(60, 35, 5, 0),
  hosting: conf(55, 40, 5, 0),
  bot: conf(15, 40, 30, 15),
};

/** Kinds of a company's further networks, by size tier (index 0 = 1-9 employees). */
type Shape = 'isp' | 'c29' | 'c28' | 'c27' | 'c26' | 'c25' | 'c24' | 'c23' | 'c22' | 'range' | 'landlord';
const SHAPES: Weighted<Shape>[] = [
  new Weighted<Shape>([
    ['isp', 45],
    ['c29', 15],
    ['c28', 15],
    ['c27', 6],
    ['range', 10],
    ['c24', 9],
  ]),
  new Weighted<Shape>([
    ['isp', 30],
    ['c29', 12],
    ['c28', 14],
    ['c27', 10],
    ['c26', 6],
    ['range', 12],
    ['c24', 16],
  ]),
  new Weighted<Shape>([
    ['isp', 10],
    ['c28', 10],
    ['c27', 12],
    ['c26', 12],
    ['c25', 8],
    ['range', 15],
    ['c24', 28],
    ['landlord', 5],
  ]),
  new Weighted<Shape>([
    ['isp', 5],
    ['c28', 6],
    ['c27', 10],
    ['c26', 10],
    ['c25', 10],
    ['range', 12],
    ['c24', 35],
    ['c23', 5],
    ['c22', 3],
    ['landlord', 4],
  ]),
  new Weighted<Shape>([
    ['isp', 3],
    ['c28', 5],
    ['c27', 8],
    ['c26', 9],
    ['c25', 10],
    ['range', 10],
    ['c24', 40],
    ['c23', 7],
    ['c22', 4],
    ['landlord', 4],
  ]),
  new Weighted<Shape>([
    ['c28', 4],
    ['c27', 8],
    ['c26', 8],
    ['c25', 10],
    ['range', 10],
    ['c24', 42],
    ['c23', 10],
    ['c22', 4],
    ['landlord', 4],
  ]),
  new Weighted<Shape>([
    ['c28', 3],
    ['c27', 6],
    ['c26', 8],
    ['c25', 10],
    ['range', 8],
    ['c24', 45],
    ['c23', 12],
    ['c22', 5],
    ['landlord', 3],
  ]),
  new Weighted<Shape>([
    ['c28', 2],
    ['c27', 5],
    ['c26', 8],
    ['c25', 10],
    ['range', 8],
    ['c24', 47],
    ['c23', 12],
    ['c22', 5],
    ['landlord', 3],
  ]),
];

/** Chance and prefixes of one big network (a company's own /16–/22) by size tier. */
const BIG: [number, number[]][] = [
  [0, []],
  [0, []],
  [0, []],
  [0.08, [22]],
  [0.2, [21, 22]],
  [0.45, [20, 21, 22]],
  [0.5, [19, 20, 21]],
  [0.45, [16, 17, 18, 18, 19, 19]],
];

interface Landlord {
  box: Container;
  geo: Place;
}

interface Pending {
  due: number;
  cells: NetworkCells;
}

/** Emission rates of non-company networks per company generated. */
const ISP_RATE = 1 / 900;
const HOSTING_RATE = 1 / 130;
const BOT_RATE = 1 / 45;
const DUPLICATE_RATE = 0.004;

/** Chance that an ISP / a hosting provider has an IPv6 block too, and that a bot in IPv6 hosting space gets a /64. */
const ISP_V6 = 0.75;
const HOSTING_V6 = 0.6;
const BOT_V6 = 0.3;
/** Chance of a company having an IPv6 network, by size tier (index 0 = 1-9 employees). */
const COMPANY_V6 = [0.12, 0.15, 0.22, 0.3, 0.38, 0.45, 0.5, 0.55];

/** Privacy networks per company generated, by kind of anonymiser. */
const PRIVACY_RATE = 1 / 40;
const PRIVACY_DRAW = new Weighted<'vpn' | 'relay' | 'tor' | 'public-proxy' | 'residential-proxy'>([
  ['vpn', 40],
  ['relay', 12],
  ['tor', 10],
  ['public-proxy', 18],
  ['residential-proxy', 20],
]);

interface Box6 {
  box: Container6;
  geo: Place;
}

export class NetworkPlanner {
  private readonly space: Ipv4Space;
  private readonly companyPool: Pool;
  private readonly hostingPool: Pool;
  /** Current ISP container per country (small companies' static blocks go there). */
  private readonly isps = new Map<string, { box: Container; geo: Place }>();
  private readonly allIsps: { box: Container; geo: Place }[] = [];
  private readonly hosting: { box: Container; geo: Place }[] = [];
  private readonly landlords: Landlord[] = [];
  private readonly pending: Pending[] = [];
  private readonly recent: NetworkCells[] = [];
  private readonly dataCentres = new Weighted(DATA_CENTRES.map(([iso, city, w]) => [findPlace(iso, city), w] as const));
  private readonly countries = new Weighted(COUNTRIES.map((c) => [c, c.weight] as const));
  readonly counts: Record<string, number> = { company: 0, isp: 0, hosting: 0, bot: 0 };
  /** Index of the company being generated (repeated rows fall due some companies later). */
  private current = 0;
  private readonly space6: Ipv6Space;
  /** IPv6: the current ISP /32 per country, recent hosting blocks, one PI /32 per registry for companies' /48s. */
  private readonly isps6 = new Map<string, Box6>();
  private readonly hosting6: Box6[] = [];
  private readonly piPools = new Map<string, Container6>();

  constructor(
    private readonly rng: Rng,
    private readonly out: RowSink,
    /** The IPv6 plan's own stream (so that IPv4 rows do not depend on it). */
    private readonly rng6: Rng,
    /** The privacy networks' own stream (so that no other row depends on them). */
    private readonly rngP: Rng,
  ) {
    this.space = new Ipv4Space(rng.fork('blocks'));
    this.companyPool = new Pool(this.space, rng, 0.15, 16);
    this.hostingPool = new Pool(this.space, rng, 0.1, 4);
    this.space6 = new Ipv6Space(rng6);
  }

  /** The first ISP, hosting and bot networks: protected, so they answer for their kind. */
  start(): { isp: DemoNetwork; hosting: DemoNetwork; bot: DemoNetwork } {
    const rng = this.rng;
    const us = this.place(COUNTRIES[0]);
    const ispBlock = this.space.takeBlocks(1);
    const isp = this.put(cidr(ispBlock.start, ispBlock.prefix), 'isp', '', CONFIDENCE.protected.draw(rng), us);
    this.newIsp6(us, 1);
    const dc = this.dataCentres.draw(rng);
    const hStart = this.hostingPool.alloc(22);
    const hosting = this.put(cidr(hStart, 22), 'hosting', '', CONFIDENCE.protected.draw(rng), dc);
    this.newHosting6(dc, 1);
    const bStart = this.hostingPool.alloc(29);
    const bot = this.put(cidr(bStart, 29), 'bot', '', 'High', dc);
    return {
      isp: demo(isp, ispBlock.start, sizeOf(ispBlock.prefix), rng),
      hosting: demo(hosting, hStart, 1024, rng),
      bot: demo(bot, bStart, 8, rng),
    };
  }

  /** Emits the networks of one company; returns its protected network when asked for one. */
  forCompany(c: Company, protect: boolean): DemoNetwork | null {
    const rng = this.rng;
    const tier = c.tier;
    this.current = c.index;
    const wanted = rng.int(tier.networks[0], tier.networks[1]);
    let made = 0;
    let demoNet: DemoNetwork | null = null;

    if (protect) {
      const prefix = tier.index >= 5 && rng.chance(0.5) ? 23 : 24;
      const start = this.companyPool.alloc(prefix);
      const cells = this.put(cidr(start, prefix), 'company', c.id, CONFIDENCE.protected.draw(rng), c.offices[0], false);
      demoNet = demo(cells, start, sizeOf(prefix), rng);
      made++;
    }

    const [bigChance, bigPrefixes] = BIG[tier.index];
    if (made < wanted && rng.chance(bigChance)) {
      const prefix = rng.pick(bigPrefixes);
      const start = this.companyPool.alloc(prefix);
      const geo = this.office(c, made === 0);
      this.put(cidr(start, prefix), 'company', c.id, CONFIDENCE.large.draw(rng), geo);
      made++;
      const box = new Container(start, prefix, 0.25, 0.75);
      // Branch sites with their own, more specific networks inside the company's block.
      for (let k = Math.min(wanted - made, rng.int(0, 3)); k > 0; k--) {
        const p = rng.int(24, 26);
        const inner = box.carve(p, rng);
        if (inner === null) break;
        this.put(cidr(inner, p), 'company', c.id, CONFIDENCE.c24.draw(rng), rng.pick(c.offices));
        made++;
      }
      if (prefix >= 20 && rng.chance(0.4)) this.addLandlord({ box, geo });
    }

    while (made < wanted) {
      this.companyNetwork(c, SHAPES[tier.index].draw(rng), this.office(c, made === 0), made === 0);
      made++;
    }
    if (demoNet) demoNet.ipv6 = this.protectedCompany6(c, demoNet.confidence);
    else this.company6(c);
    return demoNet;
  }

  /** A protected company's own /48: nothing nested in it, never repeated. */
  private protectedCompany6(c: Company, confidence: Confidence): { network: string; ip: string } {
    const start = this.piPool(c.offices[0]).carve(48, this.rng6)!;
    const network = cidr6(start, 48);
    this.emitRow([network, 'company', c.id, confidence, c.offices[0].country.name, c.offices[0].state.name, c.offices[0].city.name]);
    const rng6 = this.rng6;
    return { network, ip: ipv6Text(start + BigInt(rng6.int(1, 255)), (BigInt(rng6.uint32()) << 32n) | BigInt(rng6.uint32())) };
  }

  /** Maybe an IPv6 network of the company (chance by size tier): ISP /56 for the small, own /48 or /44 for the rest. */
  private company6(c: Company): void {
    const rng6 = this.rng6;
    if (!rng6.chance(COMPANY_V6[c.tier.index])) return;
    const geo = c.offices[0];
    const conf6 = (c.tier.index >= 5 ? CONFIDENCE.large : c.tier.index >= 3 ? CONFIDENCE.c24 : CONFIDENCE.ispTenant).draw(rng6);
    const isp = this.isps6.get(geo.country.iso);
    if (c.tier.index <= 2 && isp) {
      const start = isp.box.carve(56, rng6);
      if (start !== null) {
        this.emitRow([cidr6(start, 56), 'company', c.id, conf6, geo.country.name, geo.state.name, geo.city.name]);
        return;
      }
    }
    const prefix = c.tier.index >= 6 && rng6.chance(0.3) ? 44 : 48;
    const start = this.piPool(geo).carve(prefix, rng6);
    if (start === null) return;
    this.emitRow([cidr6(start, prefix), 'company', c.id, conf6, geo.country.name, geo.state.name, geo.city.name]);
    if (prefix === 44 && c.offices.length > 1) {
      // A branch office's /48 inside the company's /44.
      const branch = new Container6(start, 44).carve(48, rng6);
      const office = c.offices[1];
      if (branch !== null)
        this.emitRow([cidr6(branch, 48), 'company', c.id, CONFIDENCE.c24.draw(rng6), office.country.name, office.state.name, office.city.name]);
    }
  }

  /** The registry's current provider-independent /32 that companies' /48s come from (a fresh one when full). */
  private piPool(geo: Place): Container6 {
    const registry = registryOf(geo.country.iso);
    let pool = this.piPools.get(registry);
    if (!pool || pool.full) {
      pool = new Container6(this.space6.take(registry), 32);
      this.piPools.set(registry, pool);
    }
    return pool;
  }

  /** An ISP's IPv6 /32 (a /29 now and then), home of the country's small companies' /56s. */
  private newIsp6(geo: Place, chance = ISP_V6): void {
    const rng6 = this.rng6;
    if (!rng6.chance(chance)) return;
    const prefix = rng6.chance(0.1) ? 29 : 32;
    const start = this.space6.take(registryOf(geo.country.iso), prefix);
    this.emitRow([cidr6(start, prefix), 'isp', '', CONFIDENCE.isp.draw(rng6), geo.country.name, geo.state.name, geo.city.name]);
    this.isps6.set(geo.country.iso, { box: new Container6(start, prefix), geo });
  }

  /** A hosting provider's IPv6 block: a /32 for the big ones, else a /40–/44 inside a hosting /32. */
  private newHosting6(geo: Place, chance = HOSTING_V6): void {
    const rng6 = this.rng6;
    if (!rng6.chance(chance)) return;
    let start: bigint | null = null;
    let prefix = 32;
    const parent = this.hosting6.length > 0 && rng6.chance(0.7) ? rng6.pick(this.hosting6) : null;
    if (parent && parent.box.prefix === 32) {
      prefix = rng6.pick([40, 44, 44]);
      start = parent.box.carve(prefix, rng6);
    }
    if (start === null) {
      prefix = 32;
      start = this.space6.take(registryOf(geo.country.iso));
    }
    this.emitRow([cidr6(start, prefix), 'hosting', '', CONFIDENCE.hosting.draw(rng6), geo.country.name, geo.state.name, geo.city.name]);
    this.hosting6.push({ box: new Container6(start, prefix), geo });
    if (this.hosting6.length > 32) this.hosting6.shift();
  }

  /** Sometimes a bot's /64 inside a recent IPv6 hosting block. */
  private newBot6(): void {
    const rng6 = this.rng6;
    if (this.hosting6.length === 0 || !rng6.chance(BOT_V6)) return;
    const parent = rng6.pick(this.hosting6);
    const start = parent.box.carve(64, rng6);
    if (start === null) return;
    const geo = parent.geo;
    this.emitRow([cidr6(start, 64), 'bot', '', CONFIDENCE.bot.draw(rng6), geo.country.name, geo.state.name, geo.city.name]);
  }

  /** Where a network is: the headquarters for the first one and half of the others, else any office. */
  private office(c: Company, first: boolean): Place {
    return first || c.offices.length === 1 || this.rng.chance(0.5) ? c.offices[0] : this.rng.pick(c.offices);
  }

  private companyNetwork(c: Company, shape: Shape, geo: Place, first: boolean): void {
    const rng = this.rng;
    switch (shape) {
      case 'isp': {
        const p = rng.pick([29, 29, 28, 30, 32]);
        // A single static address is carved as a /30 and sits inside it (never an x.y.z.0 host).
        const carved = p === 32 ? 30 : p;
        let isp = this.isps.get(geo.country.iso);
        let start = isp ? isp.box.carve(carved, rng) : null;
        if (start === null) {
          isp = this.newIsp(this.place(geo.country));
          start = isp.box.carve(carved, rng);
        }
        if (start === null) return this.companyNetwork(c, 'c28', geo, first);
        if (p === 32) start += rng.int(1, 2);
        if (p <= 29 && rng.chance(0.3)) {
          const [a, b] = rangeInside(start, sizeOf(p), rng);
          this.put(range(a, b), 'company', c.id, CONFIDENCE.ispTenant.draw(rng), geo);
        } else this.put(cidr(start, p), 'company', c.id, CONFIDENCE.ispTenant.draw(rng), geo);
        return;
      }
      case 'landlord': {
        if (first || this.landlords.length === 0) return this.companyNetwork(c, 'c27', geo, first);
        const i = rng.int(0, this.landlords.length - 1);
        const host = this.landlords[i];
        const p = rng.pick([27, 27, 28, 29]);
        const start = host.box.carve(p, rng);
        if (start === null) {
          this.landlords.splice(i, 1);
          return this.companyNetwork(c, 'c27', geo, first);
        }
        this.put(cidr(start, p), 'company', c.id, CONFIDENCE.landlordTenant.draw(rng), host.geo);
        return;
      }
      case 'range': {
        const p = rng.pick([24, 24, 25, 23]);
        const start = this.companyPool.alloc(p);
        const [a, b] = rangeInside(start, sizeOf(p), rng);
        this.put(range(a, b), 'company', c.id, CONFIDENCE.small.draw(rng), geo);
        return;
      }
      default: {
        const p = Number(shape.slice(1));
        const start = this.companyPool.alloc(p);
        const confidence = (p <= 23 ? CONFIDENCE.large : p === 24 ? CONFIDENCE.c24 : p <= 27 ? CONFIDENCE.medium : CONFIDENCE.small).draw(rng);
        this.put(cidr(start, p), 'company', c.id, confidence, geo);
        if (p <= 22 && rng.chance(0.5)) this.addLandlord({ box: new Container(start, p, 0.25, 0.75), geo });
      }
    }
  }

  /** After each company: the occasional ISP, hosting or bot network, and repeated rows that fell due. */
  afterCompany(index: number): void {
    const rng = this.rng;
    if (rng.chance(ISP_RATE)) this.newIsp(this.place(this.countries.draw(rng)));
    if (rng.chance(HOSTING_RATE)) this.newHosting();
    if (rng.chance(BOT_RATE)) this.newBot();
    // IPv6 bots come at their own rate, from their own stream; privacy networks from theirs.
    if (this.rng6.chance(BOT_RATE)) this.newBot6();
    if (this.rngP.chance(PRIVACY_RATE)) this.newPrivacy();
    for (let i = this.pending.length - 1; i >= 0; i--) {
      if (this.pending[i].due <= index) {
        this.emitRow(this.pending[i].cells);
        this.pending.splice(i, 1);
      }
    }
  }

  /** Emits the repeated rows still waiting. */
  finish(): void {
    for (const p of this.pending) this.emitRow(p.cells);
    this.pending.length = 0;
  }

  get blocksUsed(): number {
    return this.space.blocksUsed;
  }

  private newIsp(geo: Place): { box: Container; geo: Place } {
    const rng = this.rng;
    const r = rng.float();
    const block = this.space.takeBlocks(r < 0.1 ? 4 : r < 0.3 ? 2 : 1);
    this.put(cidr(block.start, block.prefix), 'isp', '', CONFIDENCE.isp.draw(rng), geo);
    const isp = { box: new Container(block.start, block.prefix, rng.int(1, 24) / 256, 0.75), geo };
    this.isps.set(geo.country.iso, isp);
    this.allIsps.push(isp);
    if (this.allIsps.length > 64) this.allIsps.shift();
    this.newIsp6(geo);
    return isp;
  }

  private newHosting(): void {
    const rng = this.rng;
    const p = rng.int(19, 23);
    const start = this.hostingPool.alloc(p);
    const geo = this.dataCentres.draw(rng);
    this.put(cidr(start, p), 'hosting', '', CONFIDENCE.hosting.draw(rng), geo);
    this.hosting.push({ box: new Container(start, p, 0.125, 0.625), geo });
    if (this.hosting.length > 32) this.hosting.shift();
    this.newHosting6(geo);
  }

  private newBot(): void {
    const rng = this.rng;
    const r = rng.float();
    const parent = r < 0.55 && this.hosting.length > 0 ? rng.pick(this.hosting) : r < 0.8 && this.allIsps.length > 0 ? rng.pick(this.allIsps) : null;
    const p = rng.pick([32, 31, 30, 29, 29, 28]);
    const carved = Math.min(p, 30);
    let start = parent ? parent.box.carve(carved, rng) : this.hostingPool.alloc(carved);
    if (start === null) return;
    if (p === 32) start += rng.int(1, 2);
    else if (p === 31) start += 2;
    const geo = parent ? parent.geo : this.dataCentres.draw(rng);
    if (p <= 29 && rng.chance(0.25)) {
      const [a, b] = rangeInside(start, sizeOf(p), rng);
      this.put(range(a, b), 'bot', '', CONFIDENCE.bot.draw(rng), geo);
    } else this.put(cidr(start, p), 'bot', '', CONFIDENCE.bot.draw(rng), geo);
  }

  /** One privacy network (and maybe an IPv6 /64 of the same operator) in the uncarved part of a block. */
  private newPrivacy(): void {
    const rng = this.rngP;
    const what = PRIVACY_DRAW.draw(rng);
    const inHosting = what === 'vpn' || what === 'relay' || ((what === 'tor' || what === 'public-proxy') && rng.chance(0.6));
    const parents = inHosting ? this.hosting : this.allIsps;
    if (parents.length === 0) return;
    const parent = rng.pick(parents);
    const prefix = what === 'vpn' ? rng.int(24, 28) : what === 'relay' ? rng.int(24, 26) : 32;
    const start = uncarved(parent.box, prefix, rng);
    if (start === null) return;
    const privacy: PrivacyReason = what === 'public-proxy' || what === 'residential-proxy' ? 'proxy' : what;
    const kind = inHosting ? 'hosting' : 'isp';
    const geo = parent.geo;
    const confidence = (inHosting ? CONFIDENCE.hosting : CONFIDENCE.isp).draw(rng);
    this.emitRow([cidr(start, prefix), kind, '', confidence, geo.country.name, geo.state.name, geo.city.name, privacy]);
    if ((what === 'vpn' && rng.chance(0.3)) || (what === 'relay' && rng.chance(0.7))) {
      if (this.hosting6.length === 0) return;
      const box6 = rng.pick(this.hosting6);
      const span = span64(box6.box.prefix);
      // The top eighth of an IPv6 hosting block is never carved (Container6).
      const free = span / 8n;
      const top = box6.box.start + span - free + (BigInt(rng.uint32()) % free);
      this.emitRow([cidr6(top, 64), 'hosting', '', confidence, box6.geo.country.name, box6.geo.state.name, box6.geo.city.name, privacy]);
    }
  }

  private addLandlord(l: Landlord): void {
    this.landlords.push(l);
    if (this.landlords.length > 64) this.landlords.shift();
  }

  private place(country: Place['country']): Place {
    return TABLES.place(this.rng, country);
  }

  /** Emits a row; unprotected company rows may be repeated later (identical, re-rated or re-assigned). */
  private put(network: string, kind: string, companyId: string, confidence: Confidence, geo: Place, repeatable = true): NetworkCells {
    const cells: NetworkCells = [network, kind, companyId, confidence, geo.country.name, geo.state.name, geo.city.name];
    this.emitRow(cells);
    if (repeatable && kind === 'company' && this.rng.chance(DUPLICATE_RATE)) {
      const again = [...cells] as NetworkCells;
      const r = this.rng.float();
      if (r < 0.35) again[3] = CONFIDENCE.medium.draw(this.rng);
      else if (r < 0.5 && this.recent.length > 0) {
        // Re-assigned: the block now belongs to another company seen recently.
        const other = this.rng.pick(this.recent);
        again[2] = other[2];
        again[4] = other[4];
        again[5] = other[5];
        again[6] = other[6];
      }
      this.pending.push({ due: this.current + this.rng.int(1, 200), cells: again });
    }
    if (repeatable && kind === 'company') {
      this.recent.push(cells);
      if (this.recent.length > 32) this.recent.shift();
    }
    return cells;
  }

  private emitRow(cells: NetworkCells): void {
    if (cells.length === 7) cells.push('');
    this.counts[cells[1]] = (this.counts[cells[1]] ?? 0) + 1;
    this.out.write(cells as string[]); // eight cells now
  }
}

function demo(cells: NetworkCells, start: number, size: number, rng: Rng): DemoNetwork {
  const offset = size <= 4 ? size - 1 : rng.int(1, Math.min(size - 2, 250));
  return {
    network: cells[0],
    ip: ipOf(start + offset),
    kind: cells[1],
    company_id: cells[2],
    confidence: cells[3],
  };
}

/** An aligned /prefix at random in the part of `box` nothing is carved from (its limit to its end), or null. */
function uncarved(box: Container, prefix: number, rng: Rng): number | null {
  const size = sizeOf(prefix);
  const first = Math.ceil(box.limit / size) * size;
  const slots = Math.floor((box.end - first) / size);
  return slots < 1 ? null : first + rng.int(0, slots - 1) * size;
}

function ipOf(n: number): string {
  return cidr(n, 32).slice(0, -3);
}
