/**
 * How far a text recogniser's CTC output is from showing a given word somewhere along the line
 * (keyword spotting). Where the recogniser misreads a name on a small photo (`Punelino` for
 * Plumeline, `HrachiRadieux` for Jirachi Radieux), the names it might be can still be told apart by
 * what the recogniser saw at each step, which its one best reading throws away.
 *
 * The cost of a word is the least, over every placement of the word in a span of the line's steps
 * (the steps before and after the span are free), of the sum over the span's steps of
 * `log p(best class) − log p(the placement's class)`: 0 when the greedy reading holds the word, more
 * the more steps the word needs that the recogniser gave to something else. A Viterbi path, not
 * the CTC sum, so that words of different lengths compare: each step costs what reading it
 * otherwise than the recogniser did costs.
 */

/** Per step, `log p` of every class; class 0 is the CTC blank. */
export interface CtcSteps {
  logProbs: Float32Array;
  steps: number;
  classes: number;
  /**
   * Each step's best `log p` over every class, where `logProbs` holds only the blank's and the
   * lexicon's classes (the recogniser has 6,625 classes, the lexicon uses about 60).
   */
  top?: Float32Array;
}

export interface Placement {
  cost: number;
  /** The dearest single step of the placement: a letter the recogniser read surely as another. */
  worst: number;
  /** The span's first and last steps. */
  from: number;
  to: number;
}

/** Each step's best `log p`. */
export function stepTops({ logProbs, steps, classes, top: given }: CtcSteps): Float32Array {
  if (given) return given;
  const top = new Float32Array(steps).fill(-Infinity);
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    for (let k = 0; k < classes; k++) if (logProbs[row + k]! > top[t]!) top[t] = logProbs[row + k]!;
  }
  return top;
}

/** The word's cheapest placement; `Infinity` cost for a word with a character the recogniser has no class for, or an empty word. */
export function spotWord(ctc: CtcSteps, word: ArrayLike<number>, top = stepTops(ctc)): Placement {
  const { logProbs, steps, classes } = ctc;
  const none = { cost: Infinity, worst: Infinity, from: -1, to: -1 };
  if (!word.length) return none;
  for (let i = 0; i < word.length; i++) if (!(word[i]! > 0 && word[i]! < classes)) return none;
  // states: blank, c1, blank, c2, …, cn, blank
  const n = 2 * word.length + 1;
  const label = (s: number) => (s % 2 === 0 ? 0 : word[(s - 1) / 2]!);
  let prev = new Float64Array(n).fill(Infinity);
  let cur = new Float64Array(n);
  let prevStart = new Int32Array(n);
  let curStart = new Int32Array(n);
  let prevWorst = new Float64Array(n);
  let curWorst = new Float64Array(n);
  let best = none;
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    for (let s = 0; s < n; s++) {
      let from = prev[s]!;
      let start = prevStart[s]!;
      let worst = prevWorst[s]!;
      if (s > 0 && prev[s - 1]! < from) {
        from = prev[s - 1]!;
        start = prevStart[s - 1]!;
        worst = prevWorst[s - 1]!;
      }
      if (s >= 2 && s % 2 === 1 && label(s) !== label(s - 2) && prev[s - 2]! < from) {
        from = prev[s - 2]!;
        start = prevStart[s - 2]!;
        worst = prevWorst[s - 2]!;
      }
      // the word may start at this step, after free steps: at its first character (or the blank before it)
      if (s <= 1 && 0 < from) {
        from = 0;
        start = t;
        worst = 0;
      }
      const step = top[t]! - logProbs[row + label(s)]!;
      cur[s] = from + step;
      curStart[s] = start;
      curWorst[s] = Math.max(worst, step);
    }
    for (const s of [n - 2, n - 1]) if (cur[s]! < best.cost) best = { cost: cur[s]!, worst: curWorst[s]!, from: curStart[s]!, to: t };
    [prev, cur] = [cur, prev];
    [prevStart, curStart] = [curStart, prevStart];
    [prevWorst, curWorst] = [curWorst, prevWorst];
  }
  return best;
}

/** Words to spot, each in a group (a name's spellings in several languages are one group: one species). */
export interface EncodedLexicon {
  /**
   * `formOf`: the group of the name this word prints with a form (`Ethernatos Radieux`: Éthernatos's),
   * where it is one: a word going on from the likeliest is taken for it only if it is the likeliest's form.
   */
  words: readonly { text: string; classes: Int32Array; group: number; formOf?: number }[];
  /** The classes the words use, where known: the only ones whose `log p` a placement reads. */
  used?: Int32Array;
}

export interface Spotted {
  /** The word as the lexicon spells it. */
  word: string;
  group: number;
  placement: Placement;
  /** The placement's cost and {@link OUTSIDE} for each letter the greedy reading has outside it: what words are ranked by. */
  score: number;
  /** Cost per letter of the word. */
  perLetter: number;
  /** How much more the best word of any other group costs (`Infinity` when none could be placed). */
  margin: number;
}

/** Words within this much of the cheapest are as likely: of those, the longest is taken (`Mewtwo` over `Mew`, which it holds). */
const SAME_COST = 0.5;
/**
 * What each letter of the greedy reading left outside a word's placement adds to its score: a name
 * line is mostly its name, so a word that fits part of it well (`Purmel` in `Phneline`, 6.1) must
 * not outrank one that fits all of it a little worse (`Plumeline`, 5.4).
 */
export const OUTSIDE = 1;
/**
 * How much more one of the likeliest word's forms that goes on from it may cost and be taken instead:
 * its letters after the likeliest word's are a misread ending the likeliest leaves outside
 * (`EthernatosRdlauR`: `Ethernatos` 6 with six letters outside, `EthernatosRadieux` 7.6), not letters
 * read elsewhere. Not another name that goes on from it (`Pidgeotto` from `Pidgeot`, `Golemastoc` from
 * `Golem`): the margin does not count the word it goes on from, so that one would be taken up to 2
 * dearer than a cheaper name no rival.
 */
const GOES_ON_COST = 2;

/** Rounding: a bound is taken to hold a score only to within this. */
const SLACK = 1e-6;

/** The lexicon's words in the order of their characters' classes, and how many characters each shares with the word before it. */
interface WordOrder {
  order: Int32Array;
  shared: Int32Array;
}
const wordOrders = new WeakMap<EncodedLexicon['words'], WordOrder>();

function wordOrder(words: EncodedLexicon['words']): WordOrder {
  let known = wordOrders.get(words);
  if (!known) {
    const compare = (a: Int32Array, b: Int32Array) => {
      for (let j = 0; j < a.length && j < b.length; j++) if (a[j] !== b[j]) return a[j]! - b[j]!;
      return a.length - b.length;
    };
    const order = Int32Array.from(words.keys()).sort((a, b) => compare(words[a]!.classes, words[b]!.classes));
    const shared = new Int32Array(order.length);
    for (let i = 1; i < order.length; i++) {
      const a = words[order[i - 1]!]!.classes;
      const b = words[order[i]!]!.classes;
      let j = 0;
      while (j < a.length && j < b.length && a[j] === b[j]) j++;
      shared[i] = j;
    }
    known = { order, shared };
    wordOrders.set(words, known);
  }
  return known;
}

/**
 * A lower bound on each word's score (its placement's cost, and {@link OUTSIDE} for each letter of the
 * reading left outside), which counts the letters of the reading a word must leave outside or pay for
 * inside: the cheapest placement's search (spotWord) run on the reading's letter steps alone, each
 * stretch of steps between two of them taken as one place where any of the word's letters may be
 * read at the stretch's cheapest step for it, all else there free. A name of eight letters on a
 * 33-letter Magic line leaves most of the line's letters outside or pays for them, which the bound of
 * each letter at its cheapest step (blanks free) did not say.
 *
 * Why it holds: take any placement. A letter step outside its span costs {@link OUTSIDE} a time the
 * reading lists it, as here. One inside costs what its label costs: the letter the word reads first
 * there (here the same), or the blank or the letter last read (here the cheaper of them; the blank
 * before the first letter). A step between letter steps costs what it reads there, no less than the
 * stretch's cheapest for a letter first read there, and 0 at least else. The word's letters are read
 * in order, so the placement is one of the paths this search takes the cheapest of, costed no more
 * here (the search also lets a doubled letter go without its blank between, and a stretch read more
 * letters than it has steps). Steps listed twice are counted twice outside, as the score counts them;
 * a listed step not of the line is not counted. A word with a class outside `used`, or not `wanted`,
 * is bounded by 0.
 *
 * The search is made letter by letter, each letter's costs along the line from the previous
 * letter's, so that words beginning alike (`Ethernatos`, `Ethernatos Radieux`; `Pikachu`'s prints)
 * share their first letters' (the lexicon in order of its classes: 18,000 letters to search for its
 * 32,000).
 */
export function scoreBounds(ctc: CtcSteps, words: EncodedLexicon['words'], used: Int32Array, letterSteps: readonly number[], top = stepTops(ctc), wanted?: (word: number) => boolean): Float64Array {
  const { logProbs, steps, classes } = ctc;
  const times = new Map<number, number>();
  for (const t of letterSteps) if (Number.isInteger(t) && t >= 0 && t < steps) times.set(t, (times.get(t) ?? 0) + 1);
  const at = [...times.keys()].sort((x, y) => x - y);
  const letters = at.length;
  const kinds = used.length;
  const slot = new Int32Array(classes).fill(-1);
  used.forEach((k, i) => (slot[k] = i));
  // per class used, along the line: its cost at each letter step, and its least in each stretch (stretch g before letter step g)
  const blankAt = new Float64Array(letters);
  const costAt = new Float64Array(kinds * letters);
  const stretchLeast = new Float64Array(kinds * (letters + 1)).fill(Infinity);
  for (let t = 0, e = 0; t < steps; t++) {
    const row = t * classes;
    if (e < letters && at[e] === t) {
      blankAt[e] = top[t]! - logProbs[row]!;
      for (let i = 0; i < kinds; i++) costAt[i * letters + e] = top[t]! - logProbs[row + used[i]!]!;
      e++;
    } else {
      for (let i = 0; i < kinds; i++) {
        const d = top[t]! - logProbs[row + used[i]!]!;
        if (d < stretchLeast[i * (letters + 1) + e]!) stretchLeast[i * (letters + 1) + e] = d;
      }
    }
  }
  // what leaving the letter steps before stretch g outside costs
  const before = new Float64Array(letters + 1);
  for (let e = 0; e < letters; e++) before[e + 1] = before[e]! + OUTSIDE * times.get(at[e]!)!;
  const all = before[letters]!;
  // columns[j][g]: the least cost of a span begun, the word's first j letters read, after stretch g
  const longest = words.reduce((m, w) => Math.max(m, w.classes.length), 0);
  const columns = Array.from({ length: longest + 1 }, () => new Float64Array(letters + 1));
  {
    const column = columns[0]!;
    let after = Infinity;
    for (let g = 0; g <= letters; g++) {
      // the span may begin in this stretch; a letter step inside it before the first letter reads the blank
      const c = before[g]! < after ? before[g]! : after;
      column[g] = c;
      if (g < letters) after = c + blankAt[g]!;
    }
  }
  const bounds = new Float64Array(words.length);
  const { order, shared } = wordOrder(words);
  // the columns worked out for the last word bounded, how many of them hold (a class outside `used` stops them), and how
  // many letters the words since then share with it
  let valid = 0;
  let common = 0;
  for (let r = 0; r < order.length; r++) {
    const i = order[r]!;
    common = r ? Math.min(common, shared[r]!) : 0;
    if (wanted && !wanted(i)) continue;
    const word = words[i]!.classes;
    const n = word.length;
    let j = Math.min(common, valid);
    common = Infinity;
    for (; j < n; j++) {
      const k = slot[word[j]!] ?? -1;
      if (k < 0) break;
      const from = columns[j]!;
      const column = columns[j + 1]!;
      const cost = k * letters;
      const stretch = k * (letters + 1);
      let after = Infinity;
      for (let g = 0; g <= letters; g++) {
        // letter j+1 read in stretch g, or already read before it
        const read = from[g]! + stretchLeast[stretch + g]!;
        const c = read < after ? read : after;
        column[g] = c;
        if (g === letters) break;
        // at letter step g: the letter read there, or the letter last read (or the blank) held
        const d = costAt[cost + g]!;
        const blank = blankAt[g]!;
        const held = c + (d < blank ? d : blank);
        const first = from[g]! + d;
        after = held < first ? held : first;
      }
    }
    valid = j;
    if (j < n) continue;
    // the span ends in some stretch, every letter read, the letter steps after it outside
    const column = columns[n]!;
    let least = Infinity;
    for (let g = 0; g <= letters; g++) {
      const c = column[g]! + (all - before[g]!);
      if (c < least) least = c;
    }
    bounds[i] = least;
  }
  return bounds;
}

/** A min-heap of words by a key (ties: the lexicon's order). */
class WordHeap {
  private keys: Float64Array;
  private ids: Int32Array;
  size: number;
  constructor(keys: Float64Array) {
    this.size = keys.length;
    this.keys = Float64Array.from(keys);
    this.ids = Int32Array.from(keys.keys());
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }
  get topKey(): number {
    return this.keys[0]!;
  }
  get topId(): number {
    return this.ids[0]!;
  }
  pop(): void {
    this.size--;
    this.keys[0] = this.keys[this.size]!;
    this.ids[0] = this.ids[this.size]!;
    this.down(0);
  }
  private less(a: number, b: number): boolean {
    const ka = this.keys[a]!;
    const kb = this.keys[b]!;
    return ka < kb || (ka === kb && this.ids[a]! < this.ids[b]!);
  }
  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) return;
      const c = l + 1 < this.size && this.less(l + 1, l) ? l + 1 : l;
      if (!this.less(c, i)) return;
      const k = this.keys[c]!;
      this.keys[c] = this.keys[i]!;
      this.keys[i] = k;
      const id = this.ids[c]!;
      this.ids[c] = this.ids[i]!;
      this.ids[i] = id;
      i = c;
    }
  }
}

/**
 * The lexicon's likeliest word on the line, and its margin over other groups' words, up to
 * `horizon`: a margin of `horizon` or more is said as at least that. Words are placed in the order
 * of a lower bound on their score (the greater of each character at the step that reads it cheapest,
 * blanks free, and {@link scoreBounds}), and none whose bound says it cannot matter: on a name line
 * most of the lexicon is not placed.
 *
 * What is found is, to the bit, what placing words in the order of the plain bound (each character at
 * its cheapest step) until one was past the best score by the horizon found, before the letters'
 * bound: every word within {@link SAME_COST} and {@link GOES_ON_COST} of the best score is placed,
 * and they are taken in that order; the margin over the words that search left unplaced is said as
 * the least plain bound past the best score by the horizon, as it was; and any other word is placed
 * where it could be the nearest rival under that.
 */
export function spotBest(ctc: CtcSteps, lexicon: EncodedLexicon, horizon = 4, letterSteps: readonly number[] = []): Spotted | null {
  const { logProbs, steps, classes } = ctc;
  const top = stepTops(ctc);
  const cheapest = new Float64Array(classes).fill(Infinity);
  const used = lexicon.used ?? Int32Array.from({ length: classes - 1 }, (_, i) => i + 1);
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    for (const k of used) cheapest[k] = Math.min(cheapest[k]!, top[t]! - logProbs[row + k]!);
  }
  const words = lexicon.words;
  const plain = new Float64Array(words.length);
  words.forEach((w, i) => {
    let bound = 0;
    for (const k of w.classes) bound += cheapest[k]!;
    plain[i] = bound;
  });
  const reach = Math.max(horizon, SAME_COST);
  const sortedPlain = Float64Array.from(plain).sort();
  // the least plain bound past `least` by the reach: the margin over words left unplaced, as said before
  const unplacedPast = (least: number) => {
    let lo = 0;
    let hi = sortedPlain.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sortedPlain[mid]! > least + reach) hi = mid;
      else lo = mid + 1;
    }
    return lo < sortedPlain.length ? sortedPlain[lo]! : Infinity;
  };
  type Placed = { w: EncodedLexicon['words'][number]; p: Placement; score: number; i: number };
  const placed: Placed[] = [];
  let least = Infinity;
  let unplaced = Infinity;
  const place = (i: number) => {
    const w = words[i]!;
    const p = spotWord(ctc, w.classes, top);
    if (!Number.isFinite(p.cost)) return undefined;
    const score = p.cost + OUTSIDE * letterSteps.filter((t) => t < p.from || t > p.to).length;
    const x = { w, p, score, i };
    placed.push(x);
    if (score < least) {
      least = score;
      unplaced = unplacedPast(least);
    }
    return x;
  };
  // the word of the least plain bound first: no word whose plain bound is past its score by the reach need be bounded more
  let first = 0;
  for (let i = 1; i < words.length; i++) if (plain[i]! < plain[first]!) first = i;
  if (words.length) place(first);
  const cut = unplaced;
  const bounds = scoreBounds(ctc, words, used, letterSteps, top, (i) => i !== first && plain[i]! - SLACK < cut);
  for (let i = 0; i < words.length; i++) if (plain[i]! > bounds[i]!) bounds[i] = plain[i]!;
  const heap = new WordHeap(bounds);
  // the winner, once every word that could be it is placed, and the least score of its rivals placed
  let best: Placed | undefined;
  let rival = Infinity;
  const isRival = (x: Placed, of: Placed) => x.w.group !== of.w.group && !of.w.text.includes(x.w.text);
  while (heap.size) {
    // the words left score `bound` or more
    const bound = heap.topKey - SLACK;
    // past the best by more than a likeliest word and a form going on from it may be: none is the winner
    if (!best && placed.length && bound > least + SAME_COST + GOES_ON_COST + SLACK) {
      best = winner(placed, plain, least);
      for (const x of placed) if (isRival(x, best) && x.score < rival) rival = x.score;
    }
    // nor the nearest rival under the margin said for words unplaced
    if (bound >= (best ? Math.min(unplaced, rival) : unplaced)) break;
    const i = heap.topId;
    heap.pop();
    if (i === first) continue;
    const x = place(i);
    if (x && best && isRival(x, best) && x.score < rival) rival = x.score;
  }
  if (!placed.length) return null;
  best ??= winner(placed, plain, least);
  const margin = Math.min(unplaced, ...placed.filter((x) => isRival(x, best)).map((x) => x.score)) - best.score;
  return { word: best.w.text, group: best.w.group, placement: best.p, score: best.score, perLetter: best.p.cost / best.w.classes.length, margin };
}

/** The likeliest of the words placed, or a form of it that goes on from it: of words within {@link SAME_COST} of the least score, the longest. */
function winner<T extends { w: EncodedLexicon['words'][number]; score: number; i: number }>(placed: T[], plain: Float64Array, least: number): T {
  // in the order the plain bound placed them, as before the letters' bound
  placed = [...placed].sort((a, b) => plain[a.i]! - plain[b.i]! || a.i - b.i);
  const likeliest = placed.filter((x) => x.score <= least + SAME_COST).sort((a, b) => b.w.classes.length - a.w.classes.length || a.score - b.score)[0]!;
  // a form of it that goes on from it (`Ethernatos Radieux` from `Ethernatos`), nearly as cheap, tells what the letters after it were
  const goesOn = (x: (typeof placed)[number]) => x.w.formOf === likeliest.w.group && x.w.text.length > likeliest.w.text.length && x.w.text.startsWith(likeliest.w.text);
  return placed.filter((x) => x.score <= likeliest.score + GOES_ON_COST && goesOn(x)).sort((a, b) => a.score - b.score)[0] ?? likeliest;
}
