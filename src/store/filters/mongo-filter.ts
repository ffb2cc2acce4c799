// sift is CommonJS: Node's default import is its module.exports, which carries every export.
import sift from 'sift';
import type { Operation, Options } from 'sift/lib/core.js';
import type { Key } from 'sift/lib/utils.js';
import { FilterError } from './filter-error.ts';
import { LINE_BREAKS, RegexProgram, type Range, type RegexNode as Node } from './linear-regex.ts';
import { lowerBound } from '../../util/lower-bound.ts';

/** A filter object as sent by clients; both compilers validate it again (it is cheap). */
export type MongoFilter = Record<string, unknown>;

/**
 * `nodes` counts keys, operators and the parts of literal values; the scalars listed by `$in` and
 * `$nin` count apart, in `listValues` (a search within a shop's items, or one leaving out what was
 * shown, lists thousands of ids).
 */
export const FILTER_LIMITS = { depth: 20, nodes: 1000, listValues: 10_000, regexLength: 512, fieldLength: 256 } as const;

/** Operators applied to the value at a path. */
const VALUE_OPERATORS = new Set([
  '$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$regex', '$options', '$all', '$size', '$elemMatch', '$not',
]);
/** Operators that combine whole (sub)document filters. */
const LOGICAL_OPERATORS = new Set(['$and', '$or', '$nor']);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** An object written as an operator object: some key starts with `$`. */
export const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'));

/**
 * Splits and checks a dotted field. Segments that JavaScript reads as numbers or finds on
 * Object.prototype are refused because sift would treat them as array positions or inherited
 * properties, which the PostgreSQL translation cannot reproduce.
 */
export function splitPath(field: string, operator = ''): string[] {
  if (field.length > FILTER_LIMITS.fieldLength) throw new FilterError(operator, `field name longer than ${FILTER_LIMITS.fieldLength} characters`, [...field].slice(0, 40).join('') + '…');
  const segments = field.split('.');
  for (const s of segments) {
    if (s === '') throw new FilterError(operator, 'empty segment in field name', field);
    if (s.startsWith('$')) throw new FilterError(s, 'unknown operator', field);
    if (!Number.isNaN(Number(s))) throw new FilterError(operator, `numeric segment "${s}" (array positions are not supported; use $elemMatch or $size)`, field);
    if (s in Object.prototype) throw new FilterError(operator, `field name segment "${s}" is reserved`, field);
    if (s.includes('\u0000')) throw new FilterError(operator, 'field name contains U+0000', field);
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

interface Budget {
  nodes: number;
  listValues?: number;
}

function spend(budget: Budget, operator: string, path: string): void {
  if (++budget.nodes > FILTER_LIMITS.nodes) throw new FilterError(operator, `filter has more than ${FILTER_LIMITS.nodes} nodes`, path);
}

function checkDepth(depth: number, operator: string, path: string): void {
  if (depth > FILTER_LIMITS.depth) throw new FilterError(operator, `filter nested deeper than ${FILTER_LIMITS.depth} levels`, path);
}

/** A literal operand ($eq, $in, …): JSON only, no operator objects inside, no U+0000. */
function checkLiteral(v: unknown, operator: string, path: string, depth: number, budget: Budget): void {
  spend(budget, operator, path);
  checkDepth(depth, operator, path);
  if (v === null || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new FilterError(operator, 'numbers must be finite', path);
    return;
  }
  if (typeof v === 'string') {
    if (v.includes('\u0000')) throw new FilterError(operator, 'strings may not contain U+0000', path);
    return;
  }
  if (Array.isArray(v)) {
    for (const item of v) checkLiteral(item, operator, path, depth + 1, budget);
    return;
  }
  if (isPlainObject(v)) {
    for (const [k, item] of Object.entries(v)) {
      if (k.startsWith('$')) throw new FilterError(operator, `operator ${k} inside a literal value`, path);
      if (k.includes('\u0000')) throw new FilterError(operator, 'keys may not contain U+0000', path);
      checkLiteral(item, operator, path, depth + 1, budget);
    }
    return;
  }
  throw new FilterError(operator, `unsupported value of type ${typeof v}`, path);
}

/** A document-level filter: fields plus $and/$or/$nor. */
function checkDocument(query: unknown, depth: number, budget: Budget, operator: string, prefix: string): void {
  checkDepth(depth, operator, prefix);
  if (!isPlainObject(query)) throw new FilterError(operator, 'needs an object (a filter)', prefix);
  for (const [key, value] of Object.entries(query)) {
    spend(budget, operator, prefix);
    if (LOGICAL_OPERATORS.has(key)) {
      if (!Array.isArray(value) || value.length === 0) throw new FilterError(key, 'needs a non-empty array of filters', prefix);
      for (const sub of value) checkDocument(sub, depth + 1, budget, key, prefix);
    } else if (key.startsWith('$')) {
      if (key === '$not') throw new FilterError(key, 'must be applied to a field ({field: {$not: {...}}})', prefix);
      if (VALUE_OPERATORS.has(key)) throw new FilterError(key, 'must be applied to a field', prefix);
      throw new FilterError(key, 'unknown operator', prefix);
    } else {
      splitPath(key);
      checkField(value, depth + 1, budget, prefix ? `${prefix}.${key}` : key);
    }
  }
}

/** The value given for a field: a literal (implicit $eq) or an operator object. */
function checkField(value: unknown, depth: number, budget: Budget, path: string): void {
  if (isOperatorObject(value)) checkOperators(value, depth, budget, path, true);
  else checkLiteral(value, '$eq', path, depth, budget);
}

/** An `$all` item `{$elemMatch: …}` (MongoDB: every item so, each matched by some element). */
const isElemMatchItem = (v: unknown): v is { $elemMatch: Record<string, unknown> } => isPlainObject(v) && Object.keys(v).length === 1 && '$elemMatch' in v;

/** `onField`: the operators of a document's field (not inside `$not` or a value-level `$elemMatch`), where `$all` may list `$elemMatch` items. */
function checkOperators(ops: Record<string, unknown>, depth: number, budget: Budget, path: string, onField = false): void {
  checkDepth(depth, Object.keys(ops)[0] ?? '', path);
  const keys = Object.keys(ops);
  if (keys.length === 0) throw new FilterError('', 'empty operator object', path);
  const firstOperator = keys.find((k) => k.startsWith('$')) ?? '';
  for (const k of keys) {
    if (!k.startsWith('$')) throw new FilterError(firstOperator, `cannot mix operators with the field "${k}"`, path);
  }
  for (const [op, operand] of Object.entries(ops)) {
    spend(budget, op, path);
    switch (op) {
      case '$eq':
      case '$ne':
        checkLiteral(operand, op, path, depth + 1, budget);
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        // a number that is not finite is checkLiteral's to name
        if (!(typeof operand === 'string' || typeof operand === 'boolean' || typeof operand === 'number')) {
          throw new FilterError(op, 'needs a number, string or boolean', path);
        }
        checkLiteral(operand, op, path, depth + 1, budget);
        break;
      case '$in':
      case '$nin':
        if (!Array.isArray(operand)) throw new FilterError(op, 'needs an array', path);
        checkDepth(depth + 1, op, path);
        for (const item of operand) {
          if (item !== null && typeof item === 'object') {
            checkLiteral(item, op, path, depth + 2, budget);
            continue;
          }
          budget.listValues = (budget.listValues ?? 0) + 1;
          if (budget.listValues > FILTER_LIMITS.listValues) throw new FilterError(op, `$in and $nin list at most ${FILTER_LIMITS.listValues} values in one filter`, path);
          checkLiteral(item, op, path, depth + 2, { nodes: 0 });
        }
        break;
      case '$all':
        if (!Array.isArray(operand) || operand.length === 0) throw new FilterError(op, 'needs a non-empty array', path);
        if (operand.some(isElemMatchItem)) {
          if (!operand.every(isElemMatchItem)) throw new FilterError(op, 'lists either values or {$elemMatch: …} items, not both', path);
          if (!onField) throw new FilterError(op, 'with {$elemMatch: …} items applies to a field only (not inside $not or a value-level $elemMatch)', path);
          for (const item of operand) checkOperators(item, depth + 1, budget, path);
          break;
        }
        checkLiteral(operand, op, path, depth + 1, budget);
        break;
      case '$exists':
        if (!(typeof operand === 'boolean' || operand === 0 || operand === 1)) throw new FilterError(op, 'needs true or false', path);
        break;
      case '$size':
        // a 32-bit integer, as MongoDB takes it (PostgreSQL refused a larger one with a server error while SQLite matched nothing)
        if (typeof operand !== 'number' || !Number.isInteger(operand) || operand < 0 || operand > 2_147_483_647) throw new FilterError(op, 'needs a non-negative integer up to 2147483647', path);
        break;
      case '$regex':
        if (typeof operand !== 'string') throw new FilterError(op, 'needs a string pattern', path);
        translateRegex(operand, ops.$options, path);
        break;
      case '$options':
        if (!('$regex' in ops)) throw new FilterError(op, 'needs $regex alongside', path);
        break;
      case '$elemMatch':
        if (!isPlainObject(operand) || Object.keys(operand).length === 0) throw new FilterError(op, 'needs a non-empty object', path);
        if (isValueLevel(operand)) {
          // {$elemMatch: {$gt: 1, $lt: 5}}: conditions on each element's value.
          checkOperators(operand, depth + 1, budget, path);
        } else {
          // {$elemMatch: {color: 'red', qty: {$gt: 1}}}: a filter on each element as a document.
          checkDocument(operand, depth + 1, budget, op, path);
        }
        break;
      case '$not':
        if (!isOperatorObject(operand)) throw new FilterError(op, 'needs an operator object such as {$regex: "…"} or {$gt: 5}', path);
        checkOperators(operand, depth + 1, budget, path);
        break;
      default:
        if (LOGICAL_OPERATORS.has(op)) throw new FilterError(op, 'combines filters and cannot be applied to a field', path);
        throw new FilterError(op, 'unknown operator', path);
    }
  }
}

/**
 * Checks a filter from a request; throws FilterError naming the offending operator. Returns it as
 * both engines run it: `{f: {$all: [{$elemMatch: a}, {$elemMatch: b}]}}` as `$and` of
 * `{f: {$elemMatch: a}}` and `{f: {$elemMatch: b}}`, which is what MongoDB means by it.
 */
export function validateFilter(filter: unknown): MongoFilter {
  if (filter === undefined || filter === null) return {};
  if (!isPlainObject(filter)) throw new FilterError('', 'filter must be an object');
  checkDocument(filter, 0, { nodes: 0 }, '', '');
  return expandAllElemMatch(filter);
}

/** Rewrites every field's `$all` of `$elemMatch` items (validated) into an `$and` of `$elemMatch`es. */
function expandAllElemMatch(doc: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  const extra: Record<string, unknown>[] = [];
  for (const [key, value] of Object.entries(doc)) {
    let next = value;
    if (LOGICAL_OPERATORS.has(key)) {
      const subs = value as Record<string, unknown>[];
      const expanded = subs.map(expandAllElemMatch);
      if (expanded.some((e, i) => e !== subs[i])) next = expanded;
    }
    else if (!key.startsWith('$') && isOperatorObject(value)) {
      let ops = value;
      const inner = ops.$elemMatch;
      if (isPlainObject(inner) && !isValueLevel(inner)) {
        const expanded = expandAllElemMatch(inner);
        if (expanded !== inner) ops = { ...ops, $elemMatch: expanded };
      }
      const all = ops.$all;
      if (Array.isArray(all) && all.length > 0 && all.every(isElemMatchItem)) {
        const { $all: _all, ...rest } = ops;
        for (const item of all) {
          const q = item.$elemMatch;
          extra.push({ [key]: { $elemMatch: isValueLevel(q) ? q : expandAllElemMatch(q) } });
        }
        if (Object.keys(rest).length === 0) {
          out ??= { ...doc };
          delete out[key];
          continue;
        }
        ops = rest;
      }
      next = ops;
    }
    if (next !== value) (out ??= { ...doc })[key] = next;
  }
  if (!extra.length) return out ?? doc;
  const result = out ?? { ...doc };
  result.$and = [...((result.$and as Record<string, unknown>[] | undefined) ?? []), ...extra];
  return result;
}

// ---------------------------------------------------------------------------------------------
// Regular expressions
// ---------------------------------------------------------------------------------------------
//
// JavaScript and PostgreSQL (ARE) disagree on `.`, `\w`, `\s`, `\b`, `^`/`$` under `m`,
// case-insensitivity beyond ASCII and more, so a pattern is parsed in a small common dialect and
// written out twice with every class spelled explicitly. Neither engine's flags are used except
// JavaScript's `u` (code points, like PostgreSQL) and PostgreSQL's `s` (so negated classes may
// match a newline, as in JavaScript).

const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
// What JavaScript's \s matches.
const SPACE: Range[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const MAX_REPEAT = 255; // PostgreSQL's RE_DUP_MAX

export interface TranslatedRegex {
  /** The embedded backend's matcher: linear in the text (see linear-regex.ts). */
  program: RegexProgram;
  /** An ARE pattern for PostgreSQL's like_regex with flag "s". */
  pg: string;
  /**
   * The same pattern for V8's RegExp with flag `u`. Never run on records (V8 backtracks); the
   * tests check the linear engine against it.
   */
  js: string;
}

class RegexParser {
  private i = 0;
  private readonly cps: number[];
  constructor(
    pattern: string,
    private readonly flags: { i: boolean; m: boolean; s: boolean; x: boolean },
    private readonly path: string,
  ) {
    this.cps = Array.from(pattern, (ch) => ch.codePointAt(0)!);
  }

  fail(problem: string): never {
    throw new FilterError('$regex', problem, this.path);
  }

  private peek(): number | undefined {
    return this.cps[this.i];
  }

  parse(): Node[][] {
    const alts = this.alternatives();
    if (this.i < this.cps.length) this.fail(`unbalanced ")" at position ${this.i}`);
    return alts;
  }

  private skipExtended(): void {
    if (!this.flags.x) return;
    for (;;) {
      const c = this.peek();
      if (c === 0x20 || (c !== undefined && c >= 0x09 && c <= 0x0d)) this.i++;
      else if (c === 0x23 /* # */) {
        while (this.i < this.cps.length && this.peek() !== 0x0a) this.i++;
      } else return;
    }
  }

  private alternatives(): Node[][] {
    const alts: Node[][] = [this.sequence()];
    while (this.peek() === 0x7c /* | */) {
      this.i++;
      alts.push(this.sequence());
    }
    return alts;
  }

  private sequence(): Node[] {
    const seq: Node[] = [];
    for (;;) {
      this.skipExtended();
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29 /* ) */) return seq;
      const atom = this.atom();
      this.skipExtended();
      seq.push(this.quantified(atom));
    }
  }

  private quantified(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === 0x2a) [min, max] = [0, Infinity];
    else if (c === 0x2b) [min, max] = [1, Infinity];
    else if (c === 0x3f) [min, max] = [0, 1];
    else if (c === 0x7b /* { */) {
      // counts of any length, so {1,1000} is told its count is too large, not that "{" must be escaped (h258)
      const rest = String.fromCodePoint(...this.cps.slice(this.i, this.i + 48));
      const m = /^\{(\d{1,20})(,(\d{0,20}))?\}/.exec(rest);
      if (!m) this.fail('"{" must be escaped unless it starts a {n}, {n,} or {n,m} quantifier');
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) this.fail(`repetition counts above ${MAX_REPEAT} are not supported`);
      if (max < min) this.fail('quantifier {n,m} with n > m');
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    // Greedy and lazy quantifiers find the same matches when only "is there a match" is asked.
    if (this.peek() === 0x3f) this.i++;
    const next = this.peek();
    if (next === 0x2a || next === 0x2b || next === 0x3f || next === 0x7b) this.fail('nothing to repeat (a quantifier follows a quantifier)');
    if (atom.t === 'bol' || atom.t === 'eol') this.fail('nothing to repeat (a quantifier follows an anchor)');
    if (max > 1 && atom.t === 'group' && hasAmbiguity(atom)) {
      // (a+)+ and (a|a)* take exponential time in backtracking engines such as V8's.
      this.fail('a repeated group may not contain quantifiers or alternation');
    }
    return { t: 'repeat', node: atom, min, max };
  }

  private atom(): Node {
    const c = this.cps[this.i++]!;
    switch (c) {
      case 0x2e: // .
        return { t: 'any' };
      case 0x5e: // ^
        return { t: 'bol' };
      case 0x24: // $
        return { t: 'eol' };
      case 0x28: {
        // (
        if (this.peek() === 0x3f /* ? */) {
          if (this.cps[this.i + 1] !== 0x3a /* : */) this.fail('only (…) and (?:…) groups are supported');
          this.i += 2;
        }
        const alts = this.alternatives();
        if (this.peek() !== 0x29) this.fail('missing ")"');
        this.i++;
        return { t: 'group', alts };
      }
      case 0x29:
        return this.fail('unbalanced ")"');
      case 0x5b: // [
        return this.charClass();
      case 0x5d: // ]
      case 0x7d: // }
        return this.fail(`"${String.fromCodePoint(c)}" must be escaped`);
      case 0x2a:
      case 0x2b:
      case 0x3f:
      case 0x7b:
        return this.fail('nothing to repeat');
      case 0x5c: {
        // backslash
        const e = this.escape(false);
        return typeof e === 'number' ? this.literal(e) : e;
      }
      default:
        return this.literal(c);
    }
  }

  private literal(c: number): Node {
    if (c === 0) this.fail('U+0000 is not supported');
    if (this.flags.i) {
      const same = caseVariants(c);
      if (same) return { t: 'class', neg: false, ranges: same.map((x): Range => [x, x]) };
    }
    return { t: 'char', c };
  }

  /** After a backslash: a code point, or a class for \d \w \s and their negations. */
  private escape(inClass: boolean): number | Node {
    const c = this.cps[this.i++];
    if (c === undefined) this.fail('pattern ends with "\\"');
    const ch = String.fromCodePoint(c);
    switch (ch) {
      case 'd':
        return { t: 'class', neg: false, ranges: DIGIT };
      case 'w':
        return { t: 'class', neg: false, ranges: WORD };
      case 's':
        return { t: 'class', neg: false, ranges: SPACE };
      case 'D':
      case 'W':
      case 'S':
        if (inClass) this.fail(`\\${ch} inside [...] is not supported`);
        return { t: 'class', neg: true, ranges: ch === 'D' ? DIGIT : ch === 'W' ? WORD : SPACE };
      case 'n':
        return 0x0a;
      case 'r':
        return 0x0d;
      case 't':
        return 0x09;
      case 'f':
        return 0x0c;
      case 'v':
        return 0x0b;
      case 'x': {
        const hex = String.fromCodePoint(...this.cps.slice(this.i, this.i + 2));
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.fail('\\x needs two hex digits');
        this.i += 2;
        return parseInt(hex, 16);
      }
      case 'u': {
        const rest = String.fromCodePoint(...this.cps.slice(this.i, this.i + 8));
        const m = /^(?:([0-9a-fA-F]{4})|\{([0-9a-fA-F]{1,6})\})/.exec(rest);
        if (!m) this.fail('\\u needs four hex digits or {hex}');
        const cp = parseInt(m[1] ?? m[2]!, 16);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail('\\u escape is not a Unicode scalar value');
        this.i += m[0].length;
        return cp;
      }
      default:
        // Escaped punctuation is the character itself in both engines; escaped letters and
        // digits mean different things (\b, \y, \1, \p, \m…) or nothing.
        if (c < 0x80 && /[!-/:-@[-`{-~ ]/.test(ch)) return c;
        return this.fail(`unsupported escape \\${ch}`);
    }
  }

  private charClass(): Node {
    let neg = false;
    if (this.peek() === 0x5e) {
      neg = true;
      this.i++;
    }
    const ranges: Range[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('missing "]"');
      if (c === 0x5d && !first) {
        this.i++;
        break;
      }
      if (c === 0x5d && first) {
        if (neg) {
          // [^] is JavaScript for "any character, newlines included".
          this.i++;
          return { t: 'class', neg: false, ranges: [[0, 0x10ffff]] };
        }
        this.fail('empty character class []');
      }
      first = false;
      const lo = this.classAtom();
      if (this.peek() === 0x2d /* - */ && this.cps[this.i + 1] !== 0x5d && this.cps[this.i + 1] !== undefined) {
        this.i++;
        const hi = this.classAtom();
        if (typeof lo !== 'number' || typeof hi !== 'number') this.fail('a range in [...] needs single characters at both ends');
        if (hi < lo) this.fail('range out of order in [...]');
        ranges.push([lo, hi]);
      } else if (typeof lo === 'number') ranges.push([lo, lo]);
      else ranges.push(...lo.ranges);
    }
    return { t: 'class', neg, ranges: this.flags.i ? foldRanges(ranges) : ranges };
  }

  private classAtom(): number | { ranges: Range[] } {
    const c = this.cps[this.i++]!;
    if (c === 0x5b /* [ */) this.fail('"[" inside [...] must be escaped');
    if (c === 0) this.fail('U+0000 is not supported');
    if (c !== 0x5c) return c;
    const e = this.escape(true);
    if (typeof e === 'number') return e;
    if (e.t !== 'class') this.fail('unsupported escape inside [...]');
    return { ranges: e.ranges };
  }
}

function hasAmbiguity(node: Node): boolean {
  if (node.t === 'repeat') return true;
  if (node.t !== 'group') return false;
  if (node.alts.length > 1) return true;
  return node.alts.some((seq) => seq.some(hasAmbiguity));
}

/**
 * Letters that are one another's case, by Unicode's simple (one-to-one) case mappings as JavaScript's toLowerCase and
 * toUpperCase give them, joined transitively: `k`, `K` and the Kelvin sign; `ß` and `ẞ` (`ß` upper-cased is two letters,
 * `SS`, which a one-letter class cannot hold). Each cased code point maps to its whole set, sorted. `i` spells a letter
 * out as its set, so both backends fold alike whatever their locale (h311: `^ökö$` with `i` missed `Ökö` on both, as `i`
 * folded ASCII only).
 */
let caseSets: Map<number, number[]> | undefined;
/** Every cased code point, ascending (a class's letters are found by searching it, not by reading every set). */
let cased: number[] = [];
function caseTable(): Map<number, number[]> {
  if (caseSets) return caseSets;
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  const join = (a: number, b: number) => {
    const [ra, rb] = [find(a), find(b)];
    if (!parent.has(ra)) parent.set(ra, ra);
    if (!parent.has(rb)) parent.set(rb, rb);
    if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb));
  };
  // every cased letter lies below U+1F000 (Adlam, U+1E900–U+1E94B, is the last script with case)
  for (let c = 0; c < 0x1f000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const ch = String.fromCodePoint(c);
    for (const other of [ch.toLowerCase(), ch.toUpperCase()]) {
      const o = other.codePointAt(0)!;
      if (o !== c && other.length === String.fromCodePoint(o).length) join(c, o);
    }
  }
  const sets = new Map<number, number[]>();
  for (const c of parent.keys()) {
    const root = find(c);
    const set = sets.get(root) ?? [];
    set.push(c);
    sets.set(root, set);
  }
  caseSets = new Map();
  for (const set of sets.values()) {
    set.sort((a, b) => a - b);
    for (const c of set) caseSets.set(c, set);
  }
  cased = [...caseSets.keys()].sort((a, b) => a - b);
  return caseSets;
}

/** The letters of `c`'s case set (itself among them), or undefined for a code point without case. */
function caseVariants(c: number): number[] | undefined {
  return caseTable().get(c);
}

/** Ranges with every letter's other cases added: the cased letters inside each range, found by binary search. */
function foldRanges(ranges: Range[]): Range[] {
  const table = caseTable();
  const out = [...ranges];
  const added = new Set<number[]>();
  for (const [lo, hi] of ranges) {
    for (let i = lowerBound(cased, lo); i < cased.length && cased[i]! <= hi; i++) {
      const set = table.get(cased[i]!)!;
      if (added.has(set)) continue;
      added.add(set);
      out.push(...set.map((x): Range => [x, x]));
    }
  }
  return out;
}

const isAsciiAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const hex = (c: number, width: number) => c.toString(16).toUpperCase().padStart(width, '0');

const jsChar = (c: number) => (isAsciiAlnum(c) ? String.fromCharCode(c) : `\\u{${hex(c, 4)}}`);
const pgChar = (c: number) => (isAsciiAlnum(c) ? String.fromCharCode(c) : c > 0xffff ? `\\U${hex(c, 8)}` : `\\u${hex(c, 4)}`);

function emit(alts: Node[][], char: (c: number) => string, dialect: 'js' | 'pg', flags: { m: boolean; s: boolean }): string {
  const cls = (neg: boolean, ranges: Range[]) =>
    `[${neg ? '^' : ''}${ranges.map(([lo, hi]) => (lo === hi ? char(lo) : `${char(lo)}-${char(hi)}`)).join('')}]`;
  const notBreak = cls(true, LINE_BREAKS);
  const isBreak = cls(false, LINE_BREAKS);
  const node = (n: Node): string => {
    switch (n.t) {
      case 'char':
        return char(n.c);
      case 'class':
        return cls(n.neg, n.ranges);
      case 'any':
        // PostgreSQL runs with flag "s", where "." matches everything.
        return flags.s ? (dialect === 'js' ? '[^]' : '.') : notBreak;
      // Positive lookarounds: V8 tries a negative lookbehind between the halves of a surrogate
      // pair and finds nothing there, so (?<![^\n]) would match inside an emoji.
      case 'bol':
        return flags.m ? `(?:^|(?<=${isBreak}))` : '^';
      case 'eol':
        return flags.m ? `(?:$|(?=${isBreak}))` : '$';
      case 'group':
        return `(?:${n.alts.map((seq) => seq.map(node).join('')).join('|')})`;
      case 'repeat': {
        const q =
          n.min === 0 && n.max === Infinity ? '*'
          : n.min === 1 && n.max === Infinity ? '+'
          : n.min === 0 && n.max === 1 ? '?'
          : n.max === Infinity ? `{${n.min},}`
          : n.min === n.max ? `{${n.min}}`
          : `{${n.min},${n.max}}`;
        return node(n.node) + q;
      }
    }
  };
  return `(?:${alts.map((seq) => seq.map(node).join('')).join('|')})`;
}

const translated = new Map<string, TranslatedRegex>();
/**
 * NFA instructions held by the cache. A program can have 5,000 of them (~150 KB with its classes),
 * so the cache is also emptied by size, not only after 10,000 patterns.
 */
let translatedInstructions = 0;

/**
 * Parses a `$regex` in the supported dialect and returns the linear engine's program and the
 * equivalent PostgreSQL pattern (and V8's, for the tests). Options: i (ASCII letters only), m, s,
 * x. Throws FilterError for anything outside the dialect or its limits.
 */
export function translateRegex(pattern: string, options: unknown, path = ''): TranslatedRegex {
  if (options !== undefined && (typeof options !== 'string' || !/^[imsx]*$/.test(options))) {
    throw new FilterError('$options', 'supports only the letters i, m, s and x', path);
  }
  const opts = options ?? '';
  const key = `${opts}/${pattern}`;
  const hit = translated.get(key);
  if (hit) return hit;
  if (pattern.length > FILTER_LIMITS.regexLength) throw new FilterError('$regex', `pattern longer than ${FILTER_LIMITS.regexLength} characters`, path);
  const flags = { i: opts.includes('i'), m: opts.includes('m'), s: opts.includes('s'), x: opts.includes('x') };
  const alts = new RegexParser(pattern, flags, path).parse();
  const result = { program: new RegexProgram(alts, flags, path), pg: emit(alts, pgChar, 'pg', flags), js: emit(alts, jsChar, 'js', flags) };
  if (translated.size > 10_000 || translatedInstructions > 500_000) {
    translated.clear();
    translatedInstructions = 0;
  }
  translated.set(key, result);
  translatedInstructions += result.program.op.length;
  return result;
}

// ---------------------------------------------------------------------------------------------
// JavaScript evaluation (sift)
// ---------------------------------------------------------------------------------------------
//
// sift walks paths, arrays and logical operators; the value tests are replaced by our own:
// comparisons by code point and within one type, regexes in the common dialect, and equality as
// plain functions (sift's own equality copies every array it compares and lets null stand for a
// missing key inside objects).

/** Code point order, which is what PostgreSQL's jsonpath uses; JavaScript's `<` uses UTF-16 units. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (D800–DFFF) encode code points above FFFF, so they sort after E000–FFFF.
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Strict JSON equality; object key order does not matter (as in jsonb). */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEquals(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !jsonEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

type Test = (b: unknown) => boolean;

/** `{field: null}` also matches a missing field: sift hands us `undefined` for those. */
function equalsTest(v: unknown): Test {
  if (v === null) return (b) => b === null || b === undefined;
  if (typeof v !== 'object') return (b) => b === v;
  return (b) => typeof b === 'object' && jsonEquals(v, b);
}

function inTest(values: unknown[]): Test {
  const primitives = new Set(values.filter((v) => v !== null && typeof v !== 'object'));
  const hasNull = values.includes(null);
  const structured = values.filter((v) => v !== null && typeof v === 'object');
  return (b) => {
    if (b === null || b === undefined) return hasNull;
    if (typeof b !== 'object') return primitives.has(b);
    for (const v of structured) if (jsonEquals(v, b)) return true;
    return false;
  };
}

type OperationCreator = Options['operations'][string];

/** Compares within one type only: `$gt: 5` never matches a string, as in MongoDB. */
function rangeOperation(accept: (cmp: number) => boolean): OperationCreator {
  return (params: unknown, ownerQuery: unknown, options: Options) => {
    let test: Test;
    if (typeof params === 'number') test = (b) => typeof b === 'number' && accept(b - params);
    else if (typeof params === 'string') test = (b) => typeof b === 'string' && accept(compareCodePoints(b, params));
    else if (typeof params === 'boolean') test = (b) => typeof b === 'boolean' && accept(Number(b) - Number(params));
    else test = () => false;
    return sift.createEqualsOperation(test, ownerQuery, options);
  };
}

/** $all: every listed value equals some candidate at the path (each settles independently). */
class AllOperation implements Operation<unknown> {
  readonly propop = true;
  keep = false;
  done = false;
  private readonly children: sift.EqualsOperation<Test>[];
  constructor(values: unknown[], ownerQuery: unknown, options: Options) {
    this.children = values.map((v) => new sift.EqualsOperation(equalsTest(v), ownerQuery, options));
  }
  reset() {
    this.keep = false;
    this.done = false;
    for (const c of this.children) c.reset();
  }
  next(item: unknown, key: Key, owner: unknown) {
    let done = true;
    for (const c of this.children) {
      if (!c.done) c.next(item, key, owner);
      if (!c.done) done = false;
    }
    this.done = this.keep = done;
  }
}

/**
 * Document-style `$elemMatch` (`{$elemMatch: {q: 1}}`): some element of the field's own array passes the
 * sub-filter. sift's stopped at any array among the elements, wherever it stood, so `[[0], {q: 1}]` never matched
 * on SQLite where PostgreSQL and MongoDB match it (h210). An array inside the array is an element here, not the field:
 * MongoDB does not search it. The value-level form (`{$elemMatch: {$gt: 1}}`) stays sift's.
 */
class DocumentElemMatchOperation implements Operation<unknown> {
  readonly propop = true;
  keep = false;
  done = false;
  private readonly test: (doc: unknown) => boolean;
  constructor(query: Record<string, unknown>, options: Options) {
    // each element as a document, a scalar one too (its fields are missing: `{color: null}` matches it, as on PostgreSQL)
    this.test = sift.default(query, options);
  }
  reset() {
    this.keep = false;
    this.done = false;
  }
  next(item: unknown, _key: Key, owner: unknown) {
    if (!Array.isArray(item) || Array.isArray(owner)) return;
    if (item.some(this.test)) this.keep = this.done = true;
  }
}

const refuse = (name: string) => () => {
  throw new FilterError(name, 'unknown operator');
};

const siftOperations: Record<string, OperationCreator> = {
  $eq: (v: unknown, ownerQuery: unknown, options: Options) => sift.createEqualsOperation(equalsTest(v), ownerQuery, options),
  $ne: (v: unknown, ownerQuery: unknown, options: Options, name: string) => sift.$ne(equalsTest(v), ownerQuery, options, name),
  $in: (vs: unknown[], ownerQuery: unknown, options: Options, name: string) => sift.$in([inTest(vs)], ownerQuery, options, name),
  $nin: (vs: unknown[], ownerQuery: unknown, options: Options, name: string) => sift.$nin([inTest(vs)], ownerQuery, options, name),
  // sift reads each $all item as a query ({a: 1} as "field a is 1"); MongoDB means equality.
  $all: (vs: unknown[], ownerQuery: unknown, options: Options) => new AllOperation(vs, ownerQuery, options),
  $elemMatch: (q: Record<string, unknown>, ownerQuery: unknown, options: Options, name: string) =>
    isValueLevel(q) ? sift.$elemMatch(q, ownerQuery, options, name) : new DocumentElemMatchOperation(q, options),
  $gt: rangeOperation((c) => c > 0),
  $gte: rangeOperation((c) => c >= 0),
  $lt: rangeOperation((c) => c < 0),
  $lte: rangeOperation((c) => c <= 0),
  // Validation already refuses these; this keeps sift from running them if a caller skips it.
  $where: refuse('$where'),
  $mod: refuse('$mod'),
  $type: refuse('$type'),
};

/**
 * `$regex` runs on the linear engine, never on V8's backtracking RegExp. Every pattern of one
 * compiled filter draws on one step budget, so one scan of a collection has bounded work.
 */
function regexOperation(budget: { steps: number }): OperationCreator {
  return (pattern: string, ownerQuery: Record<string, unknown>, options: Options) => {
    const run = translateRegex(pattern, ownerQuery.$options).program.run(budget);
    return sift.createEqualsOperation((b: unknown) => typeof b === 'string' && run.test(b), ownerQuery, options);
  };
}

/** Rewrites implicit equality `{a: v}` as `{a: {$eq: v}}` so it goes through our $eq. */
function toSiftQuery(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (LOGICAL_OPERATORS.has(key)) out[key] = (value as Record<string, unknown>[]).map(toSiftQuery);
    else out[key] = isOperatorObject(value) ? toSiftOperators(value) : { $eq: value };
  }
  return out;
}

function toSiftOperators(ops: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...ops };
  const elemMatch = ops.$elemMatch as Record<string, unknown> | undefined;
  if (elemMatch) out.$elemMatch = isValueLevel(elemMatch) ? toSiftOperators(elemMatch) : toSiftQuery(elemMatch);
  if (ops.$not) out.$not = toSiftOperators(ops.$not as Record<string, unknown>);
  return out;
}

/** `$elemMatch: {$gt: 1}` tests each element's value; `$elemMatch: {a: 1}` each element as a document. */
export const isValueLevel = (q: Record<string, unknown>) => isOperatorObject(q) && !Object.keys(q).some((k) => LOGICAL_OPERATORS.has(k));

export type DocumentPredicate = (doc: Record<string, unknown>) => boolean;

/**
 * Top-level fields and $and/$or/$nor are combined here rather than inside sift so that they
 * short-circuit: sift settles a failed condition only after trying every value, so it would
 * still evaluate the remaining fields of a document that has already failed.
 */
function compileDocument(query: Record<string, unknown>, operations: Record<string, OperationCreator>): DocumentPredicate {
  const parts: DocumentPredicate[] = Object.entries(query).map(([key, value]) => {
    if (LOGICAL_OPERATORS.has(key)) {
      const subs = (value as Record<string, unknown>[]).map((sub) => compileDocument(sub, operations));
      if (key === '$and') return (doc) => subs.every((s) => s(doc));
      if (key === '$or') return (doc) => subs.some((s) => s(doc));
      return (doc) => !subs.some((s) => s(doc));
    }
    const field = isOperatorObject(value) ? toSiftOperators(value) : { $eq: value };
    return sift.default({ [key]: field } as sift.Query<Record<string, unknown>>, { operations });
  });
  if (parts.length === 1) return parts[0]!;
  return (doc) => {
    for (const p of parts) if (!p(doc)) return false;
    return true;
  };
}

/**
 * Names JavaScript finds on a string, an array, a number or a boolean (those on every object are refused
 * by `splitPath`). sift reads a path segment on whatever value it reaches, so `tags.length` was an array's
 * length and `name.length` a string's, where MongoDB and PostgreSQL see a field no array or string has:
 * filters differed between the backends, and a `deleteByFilter` on `dims.length` deleted other records.
 */
const BUILT_IN_NAMES = new Set(
  [String.prototype, Array.prototype, Number.prototype, Boolean.prototype].flatMap((p) => Object.getOwnPropertyNames(p)).filter((n) => !(n in Object.prototype)),
);
/** Such a name, renamed in the filter and in the record alike, so that only an object's own key of that name answers. */
const renamed = (name: string) => `\u0000${name}`;

function builtInSegments(query: Record<string, unknown>, found: Set<string>): Set<string> {
  const ops = (o: Record<string, unknown>) => {
    const inner = o.$elemMatch;
    if (isPlainObject(inner) && isValueLevel(inner)) ops(inner);
    else if (isPlainObject(inner)) builtInSegments(inner, found);
    if (isPlainObject(o.$not)) ops(o.$not);
  };
  for (const [key, value] of Object.entries(query)) {
    if (LOGICAL_OPERATORS.has(key)) for (const sub of value as Record<string, unknown>[]) builtInSegments(sub, found);
    else {
      for (const segment of key.split('.')) if (BUILT_IN_NAMES.has(segment)) found.add(segment);
      if (isOperatorObject(value)) ops(value);
    }
  }
  return found;
}

function renameValue(v: unknown, names: Set<string>): unknown {
  if (Array.isArray(v)) return v.map((x) => renameValue(x, names));
  if (!isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[names.has(k) ? renamed(k) : k] = renameValue(x, names);
  return out;
}

function renameQuery(query: Record<string, unknown>, names: Set<string>): Record<string, unknown> {
  const ops = (o: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [op, v] of Object.entries(o)) {
      if (op === '$elemMatch' && isPlainObject(v)) out[op] = isValueLevel(v) ? ops(v) : renameQuery(v, names);
      else if (op === '$not' && isPlainObject(v)) out[op] = ops(v);
      else out[op] = renameValue(v, names);
    }
    return out;
  };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (LOGICAL_OPERATORS.has(key)) out[key] = (value as Record<string, unknown>[]).map((sub) => renameQuery(sub, names));
    else out[key.split('.').map((s) => (names.has(s) ? renamed(s) : s)).join('.')] = isOperatorObject(value) ? ops(value) : renameValue(value, names);
  }
  return out;
}

/** A predicate over record documents with the semantics described in docs/filters.md. */
export function compileFilter(filter: unknown): DocumentPredicate {
  const valid = validateFilter(filter);
  if (Object.keys(valid).length === 0) return () => true;
  const operations = { ...siftOperations, $regex: regexOperation({ steps: 0 }) };
  const names = builtInSegments(valid, new Set());
  if (names.size === 0) return compileDocument(valid, operations);
  const predicate = compileDocument(renameQuery(valid, names), operations);
  return (doc) => predicate(renameValue(doc, names) as Record<string, unknown>);
}
