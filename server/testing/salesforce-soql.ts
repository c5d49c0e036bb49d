/**
 * The subset of SOQL the Salesforce stand-in (salesforce-stand-in.ts) answers — what the client sends and a
 * little around it: `SELECT field, Rel.field, … FROM Object [WHERE …] [LIMIT n]`, conditions of `LIKE`,
 * `=`, `!=`, `[NOT] IN (…)` joined by AND, OR, NOT and parentheses. Strings follow the SOQL reference's
 * "Quoted String Escape Sequences" (`\'`, `\\`, `\n`…, and `\%`, `\_` inside LIKE); `=` on text and LIKE
 * are case-insensitive ("Comparison Operators"); ids compare on their case-sensitive 15 characters.
 */

export type SoqlValue = string | number | boolean | null;

export interface LikePattern {
  test(value: string): boolean;
  /** The pattern's literal runs between wildcards, lower-cased (what an index can look up). */
  literals: string[];
}

export type SoqlCondition =
  | { kind: 'or' | 'and'; terms: SoqlCondition[] }
  | { kind: 'not'; term: SoqlCondition }
  | { kind: 'like'; field: string; pattern: LikePattern }
  | { kind: 'cmp'; field: string; op: '=' | '!='; value: SoqlValue }
  | { kind: 'in'; field: string; values: SoqlValue[]; negated: boolean };

export interface SoqlQuery {
  fields: string[];
  object: string;
  where: SoqlCondition | null;
  limit: number | null;
}

/** A query Salesforce would refuse with 400 and this errorCode (MALFORMED_QUERY, INVALID_FIELD …). */
export class SoqlError extends Error {
  constructor(
    message: string,
    readonly errorCode = 'MALFORMED_QUERY',
  ) {
    super(message);
  }
}

/** Strings in a WHERE clause are at most 4,000 characters (SOQL reference, "WHERE"). */
const MAX_STRING = 4_000;

type Token =
  | { t: 'word'; v: string; at: number }
  | { t: 'str'; raw: string; at: number }
  | { t: 'num'; v: number; at: number }
  | { t: 'op'; v: string; at: number }
  | { t: 'end'; at: number };

const ESCAPES: Record<string, string> = {
  n: '\n',
  N: '\n',
  r: '\r',
  R: '\r',
  t: '\t',
  T: '\t',
  b: '\b',
  B: '\b',
  f: '\f',
  F: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
};

function tokenise(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== "'") j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new SoqlError(`unexpected token: '${text.slice(at, at + 20)}'`);
      const raw = text.slice(i + 1, j);
      if (raw.length > MAX_STRING) throw new SoqlError(`String literal is longer than ${MAX_STRING} characters`);
      out.push({ t: 'str', raw, at });
      i = j + 1;
      continue;
    }
    const num = /^-?\d+(?:\.\d+)?/.exec(text.slice(i, i + 40));
    if (num && (c === '-' || /\d/.test(c))) {
      out.push({ t: 'num', v: Number(num[0]), at });
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(text.slice(i, i + 300));
    if (word) {
      out.push({ t: 'word', v: word[0], at });
      i += word[0].length;
      continue;
    }
    const op = /^(?:!=|<>|[(),=])/.exec(text.slice(i, i + 2));
    if (!op) throw new SoqlError(`unexpected token: '${c}'`);
    out.push({ t: 'op', v: op[0] === '<>' ? '!=' : op[0], at });
    i += op[0].length;
  }
  out.push({ t: 'end', at: text.length });
  return out;
}

/** A string literal's value (`\%` and `\_` stand for themselves outside LIKE too). */
function stringValue(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '\\') {
      out += raw[i];
      continue;
    }
    const next = raw[++i];
    if (next === '%' || next === '_') out += next;
    else if (next in ESCAPES) out += ESCAPES[next];
    else throw new SoqlError(`Invalid string literal '${raw}'. Illegal character sequence '\\${next ?? ''}' in string literal.`);
  }
  return out;
}

/** A LIKE pattern: `%` any run, `_` one character, `\%` `\_` themselves; case-insensitive. */
export function likePattern(raw: string): LikePattern {
  let re = '';
  let run = '';
  let shape = '';
  const literals: string[] = [];
  const flush = () => {
    if (run) literals.push(run.toLowerCase());
    if (run) shape += 'L';
    run = '';
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '%' || c === '_') {
      flush();
      shape += c;
      re += c === '%' ? '[\\s\\S]*' : '[\\s\\S]';
      continue;
    }
    let lit = c;
    if (c === '\\') {
      const next = raw[++i];
      if (next === '%' || next === '_') lit = next;
      else if (next in ESCAPES) lit = ESCAPES[next];
      else throw new SoqlError(`Invalid string literal '${raw}'. Illegal character sequence '\\${next ?? ''}' in string literal.`);
    }
    run += lit;
    re += lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  flush();
  // `%text%` (what the client sends) is a substring test: a RegExp compiled for each of thousands of
  // one-off patterns would cost more than the matching.
  const [lit] = literals;
  if (shape === '%L%') return { test: (v) => v.toLowerCase().includes(lit), literals };
  if (shape === 'L') return { test: (v) => v.toLowerCase() === lit, literals };
  let regex: RegExp | undefined;
  return { test: (v) => (regex ??= new RegExp(`^${re}$`, 'i')).test(v), literals };
}

export function parseSoql(text: string): SoqlQuery {
  const tokens = tokenise(text);
  let p = 0;
  const peek = () => tokens[p];
  const isWord = (w: string) => {
    const t = tokens[p];
    return t.t === 'word' && t.v.toUpperCase() === w;
  };
  const unexpected = (): never => {
    const t = tokens[p];
    throw new SoqlError(t.t === 'end' ? 'unexpected end of query' : `unexpected token: '${text.slice(t.at).split(/\s/)[0]}'`);
  };
  const expectWord = (w: string) => {
    if (!isWord(w)) unexpected();
    p++;
  };
  const expectOp = (v: string) => {
    const t = tokens[p];
    if (t.t !== 'op' || t.v !== v) unexpected();
    p++;
  };
  const field = (): string => {
    const t = tokens[p];
    if (t.t !== 'word' || ['SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'LIKE', 'IN', 'LIMIT'].includes(t.v.toUpperCase())) return unexpected();
    p++;
    return t.v;
  };
  const value = (): SoqlValue => {
    const t = tokens[p];
    if (t.t === 'str') {
      p++;
      return stringValue(t.raw);
    }
    if (t.t === 'num') {
      p++;
      return t.v;
    }
    if (t.t === 'word' && /^(?:true|false|null)$/i.test(t.v)) {
      p++;
      return t.v.toLowerCase() === 'null' ? null : t.v.toLowerCase() === 'true';
    }
    return unexpected();
  };

  const predicate = (): SoqlCondition => {
    const name = field();
    if (isWord('LIKE')) {
      p++;
      const t = peek();
      if (t.t !== 'str') return unexpected();
      p++;
      return { kind: 'like', field: name, pattern: likePattern(t.raw) };
    }
    const negated = isWord('NOT');
    if (negated) p++;
    if (isWord('IN')) {
      p++;
      expectOp('(');
      const values = [value()];
      while (peek().t === 'op' && (peek() as { v: string }).v === ',') {
        p++;
        values.push(value());
      }
      expectOp(')');
      return { kind: 'in', field: name, values, negated };
    }
    if (negated) return unexpected();
    const t = peek();
    if (t.t !== 'op' || (t.v !== '=' && t.v !== '!=')) return unexpected();
    p++;
    return { kind: 'cmp', field: name, op: t.v, value: value() };
  };
  const unary = (): SoqlCondition => {
    if (isWord('NOT')) {
      p++;
      return { kind: 'not', term: unary() };
    }
    const t = peek();
    if (t.t === 'op' && t.v === '(') {
      p++;
      const inner = condition();
      expectOp(')');
      return inner;
    }
    return predicate();
  };
  const conjunction = (): SoqlCondition => {
    const terms = [unary()];
    while (isWord('AND')) {
      p++;
      terms.push(unary());
    }
    return terms.length === 1 ? terms[0] : { kind: 'and', terms };
  };
  const condition = (): SoqlCondition => {
    const terms = [conjunction()];
    while (isWord('OR')) {
      p++;
      terms.push(conjunction());
    }
    return terms.length === 1 ? terms[0] : { kind: 'or', terms };
  };

  expectWord('SELECT');
  const fields = [field()];
  while (peek().t === 'op' && (peek() as { v: string }).v === ',') {
    p++;
    fields.push(field());
  }
  expectWord('FROM');
  const object = field();
  let where: SoqlCondition | null = null;
  if (isWord('WHERE')) {
    p++;
    where = condition();
  }
  let limit: number | null = null;
  if (isWord('LIMIT')) {
    p++;
    const t = peek();
    if (t.t !== 'num' || !Number.isInteger(t.v) || t.v < 0) return unexpected();
    p++;
    limit = t.v;
  }
  if (peek().t !== 'end') unexpected();
  return { fields, object, where, limit };
}

/** The fields a condition reads. */
export function conditionFields(c: SoqlCondition | null): string[] {
  if (!c) return [];
  switch (c.kind) {
    case 'or':
    case 'and':
      return c.terms.flatMap(conditionFields);
    case 'not':
      return conditionFields(c.term);
    default:
      return [c.field];
  }
}

const isIdField = (field: string) => /(?:^|[a-z])Id$/.test(field);

function equal(field: string, a: SoqlValue, b: SoqlValue): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === 'string' && typeof b === 'string') return isIdField(field) ? a.slice(0, 15) === b.slice(0, 15) : a.toLowerCase() === b.toLowerCase();
  return a === b;
}

/** Whether a record (its values by canonical field name, through `get`) meets the condition. */
export function matches(c: SoqlCondition, get: (field: string) => SoqlValue): boolean {
  switch (c.kind) {
    case 'or':
      return c.terms.some((t) => matches(t, get));
    case 'and':
      return c.terms.every((t) => matches(t, get));
    case 'not':
      return !matches(c.term, get);
    case 'like': {
      const v = get(c.field);
      return v !== null && c.pattern.test(String(v));
    }
    case 'cmp': {
      const same = equal(c.field, get(c.field), c.value);
      return c.op === '=' ? same : !same;
    }
    case 'in': {
      const v = get(c.field);
      const found = c.values.some((x) => equal(c.field, v, x));
      return c.negated ? !found && v !== null : found;
    }
  }
}

/** The condition with each field name replaced (by its canonical spelling, say). */
export function renameFields(c: SoqlCondition | null, rename: (field: string) => string): SoqlCondition | null {
  if (!c) return null;
  switch (c.kind) {
    case 'or':
    case 'and':
      return { kind: c.kind, terms: c.terms.map((t) => renameFields(t, rename)!) };
    case 'not':
      return { kind: 'not', term: renameFields(c.term, rename)! };
    default:
      return { ...c, field: rename(c.field) };
  }
}
