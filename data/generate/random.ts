/**
 * Seeded pseudo-random numbers for the sample-data generator.
 *
 * sfc32 (Chris Doty-Humphrey's "small fast counting" generator) seeded from a 128-bit cyrb128 hash of the
 * seed text. Only 32-bit integer arithmetic (`Math.imul`, shifts) decides the sequence, so the same seed gives
 * the same numbers on every platform: no `Math.random`, no clock. Floats are derived as `uint32 / 2^32`,
 * which is exact; `logUniform` adds `Math.pow`, which V8 computes with its own portable code (not the C
 * library's). The seed is compared as text: `1` and `"1"` are the same seed.
 *
 * Written here rather than taken from a library: none of the project's dependencies offers a seeded
 * generator (pure-rand only comes with the dev dependency fast-check), and both algorithms are a dozen
 * lines of well-known public-domain code.
 */

/** cyrb128: a fast 128-bit string hash (public domain, bryc); four 32-bit words. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** murmur3's 32-bit finaliser: a bijection on 32-bit integers (distinct inputs give distinct outputs). */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string | number) {
    [this.a, this.b, this.c, this.d] = cyrb128(String(seed));
    // Warm up: the first outputs of a freshly seeded sfc32 are correlated with the seed words.
    for (let i = 0; i < 16; i++) this.uint32();
  }

  /** Uniform integer in [0, 2^32). */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)];
  }

  /** Fisher–Yates, in place; returns the array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
    return items;
  }

  /** A value log-uniformly distributed in [min, max] (min > 0): small values are as likely per decade as large. */
  logUniform(min: number, max: number): number {
    return min * (max / min) ** this.float();
  }

  /** An independent generator derived from this one and a label (keeps one stream's use from shifting another's). */
  fork(label: string): Rng {
    return new Rng(`${this.uint32()}:${this.uint32()}:${label}`);
  }
}

/** A weighted choice, prepared once and drawn many times. */
export class Weighted<T> {
  private readonly items: T[];
  private readonly cumulative: number[];
  private readonly total: number;

  constructor(entries: readonly (readonly [T, number])[]) {
    this.items = [];
    this.cumulative = [];
    let sum = 0;
    for (const [item, weight] of entries) {
      if (!(weight > 0)) continue;
      sum += weight;
      this.items.push(item);
      this.cumulative.push(sum);
    }
    if (this.items.length === 0) throw new Error('a weighted choice needs at least one positive weight');
    this.total = sum;
  }

  draw(rng: Rng): T {
    const x = rng.float() * this.total;
    const c = this.cumulative;
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (x < c[mid]) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo];
  }
}
