import { FilterError } from './filter-error.ts';

// A `$regex` matcher whose time grows linearly with the text, for the embedded backend, which runs
// filters on the event loop. V8's RegExp backtracks: `a*a*a*a*a*a*b` over 60 characters took 15 s
// there (n^k work), and no parse-time rule can refuse every such pattern without refusing useful
// ones. This is the construction RE2 uses: a Thompson NFA simulated one character at a time (every
// thread advances together, so no work is repeated), with the sets of NFA states met so far cached
// as the states of a DFA built lazily. A text costs one table look-up per character once its
// transitions are cached, and at most the program's size per character when they are not.
//
// The parse tree comes from the common dialect of mongo-filter.ts (`translateRegex`), where case
// folding has already become character classes and `.` a class chosen by the `s` flag, so the only
// engine rules left here are the anchors: `^` and `$` at the ends of the text, or with `m` also
// next to a line break (\n, \r, U+2028, U+2029), as JavaScript's `m` has them.

export type Range = [number, number];
export type RegexNode =
  | { t: 'char'; c: number }
  | { t: 'class'; neg: boolean; ranges: Range[] }
  | { t: 'any' }
  | { t: 'bol' }
  | { t: 'eol' }
  | { t: 'group'; alts: RegexNode[][] }
  | { t: 'repeat'; node: RegexNode; min: number; max: number };

export const LINE_BREAKS: Range[] = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];

export const REGEX_LIMITS = {
  /**
   * NFA instructions after counted repeats are written out (`x{3,5}` is five copies of x): the
   * most work one character can cost. `\w{255}` is 256; the largest patterns seen in the filter
   * tests are under 600.
   */
  instructions: 5_000,
  /**
   * NFA steps one filter may spend over one scan of a collection on transitions not cached yet
   * (each also costs a fixed 16 for hashing and storing the new state): about 0.2 s of one core
   * on the 2-core test VM. Ordinary patterns spend a few thousand over 100,000 records, because
   * the cache answers almost every character. A pattern that keeps meeting new DFA states over
   * long texts (`[ab]*a[ab]{200}c` over random a/b text, ~200 steps a character) runs out, and
   * the request is refused with a 400 instead of holding the event loop.
   */
  steps: 10_000_000,
  /** DFA states kept per filter before the cache is emptied and rebuilt (as RE2 does). */
  cachedStates: 2_000,
  /**
   * NFA steps the whole process may spend a second, across requests, beyond a burst of one
   * filter's {@link steps}: about 50 ms of the event loop a second. One filter's budget bounds
   * one request, not a stream of them: a token sending the refused pattern five times a second
   * held the loop for 0.25 s each time (other requests waited up to 9 s). Ordinary patterns
   * spend a few thousand steps a scan and never meet it.
   */
  stepsPerSecond: 2_500_000,
} as const;

/** A filter refused because the process's regex work ({@link REGEX_LIMITS}.stepsPerSecond) is used up for now: not the pattern's fault alone. */
export class RegexWorkExhausted extends FilterError {
  constructor(readonly retryAfterSeconds: number) {
    super('$regex', `the server's regex work for now is used up by patterns that need much of it; retry in ${retryAfterSeconds} s, or anchor the pattern or make it more specific (docs/filters.md)`);
  }
}

/** The regex work the process has left: a bucket of steps, refilled with time, that every scan draws from. */
export const regexWork = {
  level: REGEX_LIMITS.steps as number,
  at: 0,
  now: () => performance.now(),
  /** Takes `steps`; throws when the bucket is empty. */
  take(steps: number): void {
    const now = this.now();
    this.level = Math.min(REGEX_LIMITS.steps, this.level + ((now - this.at) / 1000) * REGEX_LIMITS.stepsPerSecond);
    this.at = now;
    this.level -= steps;
    // the wait for a full bucket, not for its deficit: a valid heavy pattern needs up to a whole one,
    // and retried at the deficit's second it found the bucket short again, every time (a reviewer's client)
    if (this.level < 0) throw new RegexWorkExhausted(Math.ceil((REGEX_LIMITS.steps - this.level) / REGEX_LIMITS.stepsPerSecond));
  },
  /** Full again (tests: one test's scans are not the next one's). */
  reset(): void {
    this.level = REGEX_LIMITS.steps;
    this.at = this.now();
  },
};

const enum Op {
  Char,
  Split,
  Bol,
  Eol,
  Match,
}

const isBreak = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** A character class: an ASCII bitmap for the common case, sorted merged ranges for the rest. */
class CharSet {
  private readonly ascii = new Uint8Array(128);
  private readonly lo: Int32Array;
  private readonly hi: Int32Array;
  constructor(
    ranges: Range[],
    private readonly neg: boolean,
  ) {
    const merged: Range[] = [];
    for (const [a, b] of [...ranges].sort((x, y) => x[0] - y[0])) {
      const last = merged[merged.length - 1];
      if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
      else merged.push([a, b]);
    }
    this.lo = Int32Array.from(merged, (r) => r[0]);
    this.hi = Int32Array.from(merged, (r) => r[1]);
    for (let c = 0; c < 128; c++) this.ascii[c] = this.inRanges(c) !== neg ? 1 : 0;
  }

  private inRanges(c: number): boolean {
    let a = 0;
    let b = this.lo.length - 1;
    while (a <= b) {
      const m = (a + b) >> 1;
      if (c < this.lo[m]!) b = m - 1;
      else if (c > this.hi[m]!) a = m + 1;
      else return true;
    }
    return false;
  }

  has(c: number): boolean {
    return c < 128 ? this.ascii[c] === 1 : this.inRanges(c) !== this.neg;
  }
}

const ALL: Range[] = [[0, 0x10ffff]];

/** Instructions a node writes out, counted before writing them so a huge repeat is refused first. */
function size(n: RegexNode): number {
  switch (n.t) {
    case 'group':
      return n.alts.reduce((sum, seq) => sum + seq.reduce((s, x) => s + size(x), 0), 0) + n.alts.length - 1;
    case 'repeat': {
      const copies = n.max === Infinity ? n.min + 1 : n.max;
      return copies * size(n.node) + (n.max - n.min === 0 ? 0 : n.max === Infinity ? 1 : n.max - n.min);
    }
    default:
      return 1;
  }
}

/**
 * A compiled pattern. It holds no state of its own, so one program serves every filter that uses
 * the pattern; each scan gets a `RegexRun` with its own cache and step budget.
 */
export class RegexProgram {
  /** Per instruction: its Op; `x` the next instruction (Split: the first branch); `y` Split's second branch, or Char's index into `sets`. */
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly sets: CharSet[] = [];
  readonly start: number;
  readonly multiline: boolean;

  constructor(alts: RegexNode[][], flags: { m: boolean; s: boolean }, path: string) {
    const total = size({ t: 'group', alts }) + 1;
    if (total > REGEX_LIMITS.instructions) {
      throw new FilterError('$regex', `pattern too large once its repeats are written out (${total} NFA steps; at most ${REGEX_LIMITS.instructions})`, path);
    }
    const op: number[] = [];
    const x: number[] = [];
    const y: number[] = [];
    const setIndex = new Map<string, number>();
    const emit = (o: Op, a: number, b = -1) => {
      op.push(o);
      x.push(a);
      y.push(b);
      return op.length - 1;
    };
    const charSet = (ranges: Range[], neg: boolean): number => {
      const key = `${neg ? '^' : ''}${ranges.map((r) => r.join('-')).join(',')}`;
      let i = setIndex.get(key);
      if (i === undefined) {
        i = this.sets.length;
        this.sets.push(new CharSet(ranges, neg));
        setIndex.set(key, i);
      }
      return i;
    };
    // Compiled back to front: each node is given the instruction that follows it.
    const seq = (nodes: RegexNode[], next: number): number => {
      let pc = next;
      for (let i = nodes.length - 1; i >= 0; i--) pc = node(nodes[i]!, pc);
      return pc;
    };
    const node = (n: RegexNode, next: number): number => {
      switch (n.t) {
        case 'char':
          return emit(Op.Char, next, charSet([[n.c, n.c]], false));
        case 'class':
          return emit(Op.Char, next, charSet(n.ranges, n.neg));
        case 'any':
          return emit(Op.Char, next, flags.s ? charSet(ALL, false) : charSet(LINE_BREAKS, true));
        case 'bol':
          return emit(Op.Bol, next);
        case 'eol':
          return emit(Op.Eol, next);
        case 'group': {
          let pc = seq(n.alts[n.alts.length - 1]!, next);
          for (let i = n.alts.length - 2; i >= 0; i--) pc = emit(Op.Split, seq(n.alts[i]!, next), pc);
          return pc;
        }
        case 'repeat': {
          let pc = next;
          if (n.max === Infinity) {
            const loop = emit(Op.Split, -1, next);
            x[loop] = node(n.node, loop);
            pc = loop;
          } else {
            // x{2,4} is x x (x (x)?)?: every optional copy may skip straight to what follows.
            for (let i = n.max - n.min; i > 0; i--) pc = emit(Op.Split, node(n.node, pc), next);
          }
          for (let i = 0; i < n.min; i++) pc = node(n.node, pc);
          return pc;
        }
      }
    };
    const match = emit(Op.Match, -1);
    this.start = node({ t: 'group', alts }, match);
    this.op = Uint8Array.from(op);
    this.x = Int32Array.from(x);
    this.y = Int32Array.from(y);
    this.multiline = flags.m;
  }

  /** A matcher for one scan: `budget` is shared by every pattern of one filter. */
  run(budget: { steps: number }): RegexRun {
    return new RegexRun(this, budget);
  }
}

/** A transition not computed yet, and the one to a match found before its character is read. */
const UNKNOWN = -1;
const MATCHED = -2;
const FLAG_MATCH = 1;
/** No thread is left and, without `m`, none can start again (`^` has failed). */
const FLAG_DEAD = 2;
const FLAG_BOL = 4;
/** What computing one transition costs beyond its NFA steps (hashing, sorting, storing). */
const MISS_COST = 16;
const ROW = 256;

/**
 * One scan's matcher: the DFA states met so far (each the set of NFA threads alive at a position)
 * and their transitions, in flat arrays. Those on Latin-1 characters sit in one Int32Array, a row of
 * 256 per state; the rest of Unicode in a Map per state.
 */
export class RegexRun {
  private readonly mark: Int32Array;
  private generation = 0;
  private readonly stack: number[] = [];
  private readonly found: number[] = [];
  private readonly multiline: boolean;

  /** Sorted Char, Match and pending Eol instructions of each state (Eol waits for what follows). */
  private pcs: Int32Array[] = [];
  private flags: number[] = [];
  private endMatch: (boolean | undefined)[] = [];
  private table = new Int32Array(0);
  private other: (Map<number, number> | undefined)[] = [];
  private byHash = new Map<number, number[]>();
  /** Bumped when the cache is emptied: transitions computed across it are not stored. */
  private epoch = 0;
  private startState = UNKNOWN;

  constructor(
    private readonly p: RegexProgram,
    private readonly budget: { steps: number },
  ) {
    this.mark = new Int32Array(p.op.length);
    this.multiline = p.multiline;
  }

  private spend(steps: number): void {
    this.budget.steps += steps;
    if (this.budget.steps > REGEX_LIMITS.steps) {
      throw new FilterError('$regex', 'the pattern needs too much work over these records; anchor it or make it more specific (docs/filters.md)');
    }
    regexWork.take(steps);
  }

  /**
   * Adds to `found` the threads reachable from `pc` without reading a character. `eolHolds`: `$`
   * holds at this position (end of text, or before a line break with `m`). Returns the work done.
   */
  private closure(pc: number, atBol: boolean, eolHolds: boolean): number {
    const { op, x, y } = this.p;
    const stack = this.stack;
    const mark = this.mark;
    const generation = this.generation;
    let steps = 0;
    stack.push(pc);
    while (stack.length) {
      const i = stack.pop()!;
      if (mark[i] === generation) continue;
      mark[i] = generation;
      steps++;
      switch (op[i]) {
        case Op.Split:
          stack.push(y[i]!, x[i]!);
          break;
        case Op.Bol:
          if (atBol) stack.push(x[i]!);
          break;
        case Op.Eol:
          if (eolHolds) stack.push(x[i]!);
          else this.found.push(i);
          break;
        default:
          this.found.push(i);
      }
    }
    return steps;
  }

  /** The state of the threads in `found` (which it empties), looked up or added. */
  private intern(atBol: boolean): number {
    const pcs = Int32Array.from(this.found).sort();
    this.found.length = 0;
    let hash = atBol ? 0x9e3779b9 : 0x85ebca6b;
    for (let k = 0; k < pcs.length; k++) hash = Math.imul(hash ^ pcs[k]!, 0x01000193);
    const bucket = this.byHash.get(hash);
    if (bucket) {
      for (const id of bucket) if ((this.flags[id]! & FLAG_BOL) === (atBol ? FLAG_BOL : 0) && sameInts(this.pcs[id]!, pcs)) return id;
    }
    if (this.pcs.length >= REGEX_LIMITS.cachedStates) {
      // Emptied, as RE2 does: memory stays bounded however many states a text walks through.
      this.pcs = [];
      this.flags = [];
      this.endMatch = [];
      this.other = [];
      this.byHash = new Map();
      this.startState = UNKNOWN;
      this.epoch++;
    }
    const id = this.pcs.length;
    let flags = atBol ? FLAG_BOL : 0;
    for (let k = 0; k < pcs.length; k++) if (this.p.op[pcs[k]!] === Op.Match) flags |= FLAG_MATCH;
    if (pcs.length === 0 && !this.multiline) flags |= FLAG_DEAD;
    this.pcs.push(pcs);
    this.flags.push(flags);
    this.endMatch.push(undefined);
    this.other.push(undefined);
    const b = this.byHash.get(hash);
    if (b) b.push(id);
    else this.byHash.set(hash, [id]);
    if (this.table.length < (id + 1) * ROW) {
      const grown = new Int32Array(Math.min(REGEX_LIMITS.cachedStates, Math.max(16, (id + 1) * 2)) * ROW).fill(UNKNOWN);
      grown.set(this.table.subarray(0, id * ROW));
      this.table = grown;
    } else this.table.fill(UNKNOWN, id * ROW, (id + 1) * ROW);
    return id;
  }

  private start(): number {
    if (this.startState === UNKNOWN) {
      this.generation++;
      this.spend(this.closure(this.p.start, true, false) + MISS_COST);
      this.startState = this.intern(true);
    }
    return this.startState;
  }

  /** The state after reading `c` in state `from`, computed from the NFA (the cache missed). */
  private step(from: number, c: number): number {
    const { op, x, y, sets } = this.p;
    const pcs = this.pcs[from]!;
    const fromBol = (this.flags[from]! & FLAG_BOL) !== 0;
    const atBol = this.multiline && isBreak(c);
    let steps = pcs.length + MISS_COST;
    let live: ArrayLike<number> = pcs;
    if (atBol) {
      // With `m`, a pending `$` holds before a line break: follow it at this position first.
      const expanded: number[] = [];
      this.generation++;
      for (const pc of pcs) {
        if (op[pc] === Op.Eol) steps += this.closure(x[pc]!, fromBol, true);
        else expanded.push(pc);
      }
      const matched = this.found.some((pc) => op[pc] === Op.Match);
      expanded.push(...this.found);
      this.found.length = 0;
      if (matched) {
        this.spend(steps);
        return MATCHED;
      }
      live = expanded;
    }
    this.generation++;
    for (let k = 0; k < live.length; k++) {
      const pc = live[k]!;
      if (op[pc] === Op.Char && sets[y[pc]!]!.has(c)) steps += this.closure(x[pc]!, atBol, false);
    }
    // A match may begin at every position: the start threads join the ones carried over.
    steps += this.closure(this.p.start, atBol, false);
    this.spend(steps);
    return this.intern(atBol);
  }

  private matchesAtEnd(s: number): boolean {
    let known = this.endMatch[s];
    if (known === undefined) {
      const { op, x } = this.p;
      let steps = 0;
      this.generation++;
      for (const pc of this.pcs[s]!) if (op[pc] === Op.Eol) steps += this.closure(x[pc]!, (this.flags[s]! & FLAG_BOL) !== 0, true);
      known = this.found.some((pc) => op[pc] === Op.Match);
      this.found.length = 0;
      this.spend(steps);
      this.endMatch[s] = known;
    }
    return known;
  }

  /** Whether the pattern matches anywhere in `text` (code points, like JavaScript's `u` flag). */
  test(text: string): boolean {
    let s = this.start();
    // Locals for the hot loop; `step` may grow or empty the cache, so they are read again after it.
    let table = this.table;
    let flags = this.flags;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const f = flags[s]!;
      if (f & FLAG_MATCH) return true;
      if (f & FLAG_DEAD) return false;
      let c = text.charCodeAt(i);
      let next: number;
      if (c < ROW) next = table[s * ROW + c]!;
      else {
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
          const lo = text.charCodeAt(i + 1);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
            i++;
          }
        }
        next = this.other[s]?.get(c) ?? UNKNOWN;
      }
      if (next === UNKNOWN) {
        const epoch = this.epoch;
        next = this.step(s, c);
        table = this.table;
        flags = this.flags;
        // A state of an emptied cache has no slot to keep the transition in.
        if (epoch === this.epoch) {
          if (c < ROW) table[s * ROW + c] = next;
          else (this.other[s] ??= new Map()).set(c, next);
        }
      }
      if (next === MATCHED) return true;
      s = next;
    }
    return (flags[s]! & FLAG_MATCH) !== 0 || this.matchesAtEnd(s);
  }
}

function sameInts(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
