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

/**
 * The lexicon's likeliest word on the line, and its margin over other groups' words, up to
 * `horizon`: a margin of `horizon` or more is said as at least that. Words are placed in the order
 * of a bound on their cost (each character at the step that reads it cheapest, blanks free), and
 * none is placed whose bound is past the best cost by the horizon: on a name line most of the
 * lexicon is not placed at all.
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
  const bounded = lexicon.words.map((w) => {
    let bound = 0;
    for (const k of w.classes) bound += cheapest[k]!;
    return { w, bound };
  });
  bounded.sort((a, b) => a.bound - b.bound);
  const reach = Math.max(horizon, SAME_COST);
  const placed: { w: EncodedLexicon['words'][number]; p: Placement; score: number }[] = [];
  let least = Infinity;
  let unplaced = Infinity;
  // the bound holds for the score too (a score is the cost and more)
  for (const { w, bound } of bounded) {
    if (bound > least + reach) {
      unplaced = bound;
      break;
    }
    const p = spotWord(ctc, w.classes, top);
    if (!Number.isFinite(p.cost)) continue;
    const score = p.cost + OUTSIDE * letterSteps.filter((t) => t < p.from || t > p.to).length;
    placed.push({ w, p, score });
    least = Math.min(least, score);
  }
  if (!placed.length) return null;
  const likeliest = placed.filter((x) => x.score <= least + SAME_COST).sort((a, b) => b.w.classes.length - a.w.classes.length || a.score - b.score)[0]!;
  // a form of it that goes on from it (`Ethernatos Radieux` from `Ethernatos`), nearly as cheap, tells what the letters after it were
  const goesOn = (x: (typeof placed)[number]) => x.w.formOf === likeliest.w.group && x.w.text.length > likeliest.w.text.length && x.w.text.startsWith(likeliest.w.text);
  const best = placed.filter((x) => x.score <= likeliest.score + GOES_ON_COST && goesOn(x)).sort((a, b) => a.score - b.score)[0] ?? likeliest;
  // another group's word the winner holds (`Mew` inside `Mewtwo`) is no rival
  const rivals = placed.filter((x) => x.w.group !== best.w.group && !best.w.text.includes(x.w.text));
  const margin = Math.min(unplaced, ...rivals.map((x) => x.score)) - best.score;
  return { word: best.w.text, group: best.w.group, placement: best.p, score: best.score, perLetter: best.p.cost / best.w.classes.length, margin };
}
