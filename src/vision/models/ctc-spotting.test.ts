import { describe, expect, it } from 'vitest';
import { OUTSIDE, scoreBounds, spotBest, spotWord, stepTops, type CtcSteps, type EncodedLexicon, type Placement, type Spotted } from './ctc-spotting.ts';
import { seededRandom } from '../../util/seeded-random.ts';

// classes: 0 blank, 1 a, 2 b, 3 c, 4 d, 5 x
const CLASSES = 6;
/** Steps whose best class is the given one at p, the rest sharing what is left (`rival` at `q` where given). */
function steps(best: number[], p = 0.9, rival?: { at: number; k: number; q: number }): CtcSteps {
  const logProbs = new Float32Array(best.length * CLASSES);
  best.forEach((k, t) => {
    for (let c = 0; c < CLASSES; c++) {
      let v = c === k ? p : (1 - p) / (CLASSES - 1);
      if (rival && rival.at === t) v = c === k ? p - rival.q : c === rival.k ? rival.q + (1 - p) / (CLASSES - 1) : v;
      logProbs[t * CLASSES + c] = Math.log(v);
    }
  });
  return { logProbs, steps: best.length, classes: CLASSES };
}

describe('spotWord', () => {
  it('costs nothing for a word the greedy reading holds, wherever it stands, and says which steps it took', () => {
    // x a a 0 b 0 c x  → greedy "xabcx"
    const ctc = steps([5, 1, 1, 0, 2, 0, 3, 5]);
    const abc = spotWord(ctc, [1, 2, 3]);
    expect(abc.cost).toBeCloseTo(0, 6);
    expect(abc.from).toBe(1);
    expect(abc.to).toBeGreaterThanOrEqual(6);
    expect(abc.to).toBeLessThanOrEqual(7);
  });

  it('costs more the more steps the word needs read otherwise, and a doubled letter needs a blank between', () => {
    const ctc = steps([1, 0, 2, 0, 3]);
    const misread = spotWord(ctc, [1, 4, 3]).cost;
    const twoMisread = spotWord(ctc, [4, 4, 3]).cost;
    expect(misread).toBeGreaterThan(1);
    expect(twoMisread).toBeGreaterThan(misread);
    // the dearest step of a misread is the misread letter's: all of one misread's cost, half of two alike
    expect(spotWord(ctc, [1, 4, 3]).worst).toBeCloseTo(misread, 6);
    expect(spotWord(ctc, [4, 4, 3]).worst).toBeLessThan(twoMisread * 0.6);
    expect(spotWord(steps([1, 0, 2, 0, 3]), [1, 2, 3]).worst).toBeCloseTo(0, 6);
    // "aab" needs a blank between the a's: the greedy "abc" has one a
    expect(spotWord(ctc, [1, 1, 2]).cost).toBeGreaterThan(1);
    expect(spotWord(steps([1, 0, 1, 0, 2]), [1, 1, 2]).cost).toBeCloseTo(0, 6);
  });

  it('is cheaper for the letter the recogniser held second likeliest', () => {
    // step 2 reads b, with d close behind
    const ctc = steps([1, 0, 2, 0, 3], 0.9, { at: 2, k: 4, q: 0.4 });
    expect(spotWord(ctc, [1, 4, 3]).cost).toBeLessThan(spotWord(steps([1, 0, 2, 0, 3]), [1, 4, 3]).cost);
  });

  it('cannot place an empty word or one with a class the recogniser lacks', () => {
    const ctc = steps([1, 2]);
    expect(spotWord(ctc, []).cost).toBe(Infinity);
    expect(spotWord(ctc, [1, 9]).cost).toBe(Infinity);
  });
});

describe('spotBest', () => {
  const lexicon = (words: [string, number[], number, number?][]): EncodedLexicon => ({ words: words.map(([text, classes, group, formOf]) => ({ text, classes: Int32Array.from(classes), group, formOf })) });

  it('takes the longer of two words as cheap, and a word the winner holds is no rival', () => {
    const ctc = steps([1, 0, 2, 0, 3, 0, 4]);
    const found = spotBest(
      ctc,
      lexicon([
        ['ab', [1, 2], 0],
        ['abcd', [1, 2, 3, 4], 1],
        ['xx', [5, 0, 5], 2],
      ]),
    );
    expect(found?.word).toBe('abcd');
    expect(found?.perLetter).toBeCloseTo(0, 6);
    // `ab` is inside `abcd`: the margin is over `xx`
    expect(found?.margin).toBeGreaterThan(2);
  });

  it('takes a form of the likeliest that goes on from it, nearly as cheap, for the letters the likeliest leaves outside', () => {
    // "abcx": the x a misread d, held second at `d`; `abc` scores 1 (the x outside), `abcd` (a form of abc) what the d costs
    const ctc = (d: number) => steps([1, 0, 2, 0, 3, 0, 5], 0.9, { at: 6, k: 4, q: d });
    const words = lexicon([
      ['abc', [1, 2, 3], 0],
      ['abcd', [1, 2, 3, 4], 1, 0],
      ['abd', [1, 2, 4], 2],
    ]);
    const near = spotBest(ctc(0.1), words, 4, [0, 2, 4, 6]);
    expect(near?.word).toBe('abcd');
    expect(near!.score).toBeGreaterThan(1);
    // its margin is over another group's word it does not hold (`abd`), not over `abc`, which is cheaper
    expect(near!.margin).toBeGreaterThan(0);
    expect(near!.margin).toBeLessThan(4);
    // a d held no likelier than any other class: the x is not it
    expect(spotBest(ctc(0), words, 4, [0, 2, 4, 6])?.word).toBe('abc');
    // another name that goes on from the likeliest (`Pidgeotto` from `Pidgeot`) is taken only as cheap as it
    const other = lexicon([
      ['abc', [1, 2, 3], 0],
      ['abcd', [1, 2, 3, 4], 1],
      ['abd', [1, 2, 4], 2],
    ]);
    expect(spotBest(ctc(0.1), other, 4, [0, 2, 4, 6])?.word).toBe('abc');
  });

  it('says a close rival of another group as a small margin', () => {
    // the middle step between b and d
    const ctc = steps([1, 0, 2, 0, 3], 0.5, { at: 2, k: 4, q: 0.15 });
    const found = spotBest(
      ctc,
      lexicon([
        ['abc', [1, 2, 3], 0],
        ['adc', [1, 4, 3], 1],
      ]),
    );
    expect(found?.word).toBe('abc');
    expect(found!.margin).toBeGreaterThan(0);
    expect(found!.margin).toBeLessThan(1);
  });

  it('places no word whose bound is past the best by the horizon, and says the margin as at least the horizon', () => {
    const ctc = steps([1, 0, 2, 0, 3]);
    const found = spotBest(
      ctc,
      lexicon([
        ['abc', [1, 2, 3], 0],
        ['ddd', [4, 0, 4, 0, 4].filter((k) => k), 1],
      ]),
      1,
    );
    expect(found?.word).toBe('abc');
    expect(found!.margin).toBeGreaterThanOrEqual(1);
    expect(spotBest(ctc, lexicon([['q', [9], 0]]))).toBeNull();
  });

  it('says the margin over a word left unplaced as its bound, no more, and places it past a wider horizon', () => {
    // `dd` at its cheapest: each d on a step that reads something else (3.8 each), a blank between; the letters left outside add to its score
    const ctc = steps([1, 0, 2, 0, 3]);
    const words = lexicon([
      ['abc', [1, 2, 3], 0],
      ['dd', [4, 4], 1],
    ]);
    const bound = 2 * Math.log(0.9 / 0.02);
    const pruned = spotBest(ctc, words, 1, [0, 2, 4]);
    expect(pruned?.word).toBe('abc');
    expect(pruned!.margin).toBeCloseTo(bound, 4);
    const placed = spotBest(ctc, words, 20, [0, 2, 4]);
    expect(placed!.margin).toBeGreaterThan(bound + 0.99);
  });
});

describe('spotBest against every word placed', () => {
  const LETTERS = 'abcdefghij';
  const classesOf = (text: string) => Int32Array.from(text, (c) => LETTERS.indexOf(c) + 1);

  /** A lexicon of words over a few letters: spellings of one group, forms going on from a word (`formOf`), words inside others. */
  function randomLexicon(r: () => number, size: number): EncodedLexicon {
    const words: EncodedLexicon['words'][number][] = [];
    const word = (min: number, max: number) => Array.from({ length: min + Math.floor(r() * (max - min + 1)) }, () => LETTERS[Math.floor(r() * LETTERS.length)]!).join('');
    let group = 0;
    while (words.length < size) {
      const text = word(2, 9);
      words.push({ text, classes: classesOf(text), group });
      // another spelling of the name, a letter changed or added
      if (r() < 0.3) {
        const other = r() < 0.5 ? text.slice(0, -1) + word(1, 1) : text + word(1, 1);
        words.push({ text: other, classes: classesOf(other), group });
      }
      // a form going on from it, a group of its own
      if (r() < 0.2) {
        const form = text + word(2, 5);
        words.push({ text: form, classes: classesOf(form), group: group + 1, formOf: group });
        group++;
      }
      group++;
    }
    return { words };
  }

  /**
   * A line showing one of the lexicon's words among other letters, some letters misread (the true one
   * then held second), each letter read at p over 1–3 steps, blanks between; a form's added letters
   * (`Radieux` of `Ethernatos Radieux`) misread more often.
   */
  function randomLine(r: () => number, lexicon: EncodedLexicon, withTop: boolean): { ctc: CtcSteps; letterSteps: number[] } {
    const classes = LETTERS.length + 1;
    const pad = (n: number) => Array.from({ length: n }, () => LETTERS[Math.floor(r() * LETTERS.length)]!).join('');
    const forms = lexicon.words.filter((w) => w.formOf !== undefined);
    const shown = r() < 0.5 && forms.length ? forms[Math.floor(r() * forms.length)]! : r() < 0.8 ? lexicon.words[Math.floor(r() * lexicon.words.length)] : undefined;
    const base = shown?.formOf !== undefined ? lexicon.words.find((w) => w.group === shown.formOf && shown.text.startsWith(w.text))?.text.length ?? 0 : Infinity;
    const head = pad(Math.floor(r() * 4));
    const truth = head + (shown?.text ?? '') + pad(Math.floor(r() * (r() < 0.3 ? 35 : 6)));
    const best: number[] = [];
    const second: number[] = [];
    [...truth].forEach((c, i) => {
      if (r() < 0.7) {
        best.push(0);
        second.push(-1);
      }
      const k = LETTERS.indexOf(c) + 1;
      const misread = r() < (i - head.length >= base ? 0.5 : 0.15);
      const read = misread ? 1 + Math.floor(r() * LETTERS.length) : k;
      for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
        best.push(read);
        second.push(misread ? k : -1);
      }
    });
    best.push(0);
    second.push(-1);
    const steps = best.length;
    const logProbs = new Float32Array(steps * classes);
    best.forEach((k, t) => {
      const p = 0.3 + 0.69 * r();
      // the true letter of a misread held second, with a share of what is left
      const q = second[t]! >= 0 && second[t] !== k ? (1 - p) * (0.3 + 0.6 * r()) : 0;
      const rest = Array.from({ length: classes }, (_, c) => (c === k || c === second[t] ? 0 : r() ** 3));
      const sum = rest.reduce((a, b) => a + b, 0);
      for (let c = 0; c < classes; c++) logProbs[t * classes + c] = Math.log((c === k ? p : q && c === second[t] ? q : ((1 - p - q) * rest[c]!) / sum) + 1e-9);
    });
    // the greedy reading's letters: the first step of each run of one letter
    const letterSteps = best.flatMap((k, t) => (k > 0 && (t === 0 || best[t - 1] !== k) ? [t] : []));
    const ctc: CtcSteps = { logProbs, steps, classes };
    return { ctc: withTop ? { ...ctc, top: stepTops(ctc) } : ctc, letterSteps };
  }

  // as spotBest ranks and rivals the words placed (ctc-spotting.ts)
  const SAME_COST = 0.5;
  const GOES_ON_COST = 2;
  type Scored = { w: EncodedLexicon['words'][number]; p: Placement; score: number };
  let formsTaken = 0;
  function choose(placed: Scored[], least: number, unplaced: number): Spotted {
    const likeliest = placed.filter((x) => x.score <= least + SAME_COST).sort((a, b) => b.w.classes.length - a.w.classes.length || a.score - b.score)[0]!;
    const goesOn = (x: Scored) => x.w.formOf === likeliest.w.group && x.w.text.length > likeliest.w.text.length && x.w.text.startsWith(likeliest.w.text);
    const best = placed.filter((x) => x.score <= likeliest.score + GOES_ON_COST && goesOn(x)).sort((a, b) => a.score - b.score)[0] ?? likeliest;
    if (best !== likeliest) formsTaken++;
    const rivals = placed.filter((x) => x.w.group !== best.w.group && !best.w.text.includes(x.w.text));
    const margin = Math.min(unplaced, ...rivals.map((x) => x.score)) - best.score;
    return { word: best.w.text, group: best.w.group, placement: best.p, score: best.score, perLetter: best.p.cost / best.w.classes.length, margin };
  }
  const scoreOf = (ctc: CtcSteps, w: EncodedLexicon['words'][number], letterSteps: number[]) => {
    const p = spotWord(ctc, w.classes);
    return { w, p, score: p.cost + OUTSIDE * letterSteps.filter((t) => t < p.from || t > p.to).length };
  };
  /** Every word placed; the margin over words the plain bound would have left unplaced said as the least plain bound past the best score by the horizon. */
  function everyWord(ctc: CtcSteps, lexicon: EncodedLexicon, horizon: number, letterSteps: number[]): Spotted | null {
    const top = stepTops(ctc);
    const plain = lexicon.words.map((w) => {
      let bound = 0;
      for (const k of w.classes) {
        let cheapest = Infinity;
        for (let t = 0; t < ctc.steps; t++) cheapest = Math.min(cheapest, top[t]! - ctc.logProbs[t * ctc.classes + k]!);
        bound += cheapest;
      }
      return bound;
    });
    const placed = lexicon.words.map((w) => scoreOf(ctc, w, letterSteps)).filter((x) => Number.isFinite(x.p.cost));
    if (!placed.length) return null;
    const least = Math.min(...placed.map((x) => x.score));
    const unplaced = Math.min(...plain.filter((b) => b > least + Math.max(horizon, SAME_COST)));
    // in the plain bound's order, as the words were placed before the letters' bound
    const order = lexicon.words.map((w, i) => ({ w, i })).sort((a, b) => plain[a.i]! - plain[b.i]!);
    const rank = new Map(order.map((x, n) => [x.w, n]));
    return choose(placed.sort((a, b) => rank.get(a.w)! - rank.get(b.w)!), least, unplaced);
  }
  /** The search as it was before the letters' bound (f1bad8a7): words placed in the order of the plain bound until one is past the best by the horizon. */
  function asBefore(ctc: CtcSteps, lexicon: EncodedLexicon, horizon: number, letterSteps: number[]): Spotted | null {
    const top = stepTops(ctc);
    const cheapest = new Float64Array(ctc.classes).fill(Infinity);
    for (let t = 0; t < ctc.steps; t++) for (let k = 1; k < ctc.classes; k++) cheapest[k] = Math.min(cheapest[k]!, top[t]! - ctc.logProbs[t * ctc.classes + k]!);
    const bounded = lexicon.words.map((w) => ({ w, bound: w.classes.reduce((s, k) => s + cheapest[k]!, 0) })).sort((a, b) => a.bound - b.bound);
    const placed: Scored[] = [];
    let least = Infinity;
    let unplaced = Infinity;
    for (const { w, bound } of bounded) {
      if (bound > least + Math.max(horizon, SAME_COST)) {
        unplaced = bound;
        break;
      }
      const x = scoreOf(ctc, w, letterSteps);
      if (!Number.isFinite(x.p.cost)) continue;
      placed.push(x);
      least = Math.min(least, x.score);
    }
    return placed.length ? choose(placed, least, unplaced) : null;
  }

  it('finds, to the bit, what placing every word finds, and what the search before the letters’ bound found', () => {
    const r = seededRandom(304);
    let named = 0;
    let long = 0;
    for (let n = 0; n < 400; n++) {
      const lexicon = randomLexicon(r, 40 + Math.floor(r() * 120));
      const { ctc, letterSteps } = randomLine(r, lexicon, r() < 0.5);
      const horizon = [4, 4, 4, 1, 2, 8][Math.floor(r() * 6)]!;
      const found = spotBest(ctc, lexicon, horizon, letterSteps);
      // toStrictEqual compares numbers with Object.is: the same bits
      expect(found).toStrictEqual(everyWord(ctc, lexicon, horizon, letterSteps));
      expect(found).toStrictEqual(asBefore(ctc, lexicon, horizon, letterSteps));
      if (found && found.perLetter < 0.5) named++;
      if (letterSteps.length >= 24) long++;
    }
    // the cases hold names found, forms taken for the likeliest (each search counted), and long lines
    expect(named).toBeGreaterThan(50);
    expect(formsTaken).toBeGreaterThan(2 * 10);
    expect(long).toBeGreaterThan(30);
  });

  it('bounds every word’s score from below, and most words’ on a long line by more than each letter at its cheapest step', () => {
    const r = seededRandom(68);
    let tighter = 0;
    let counted = 0;
    for (let n = 0; n < 60; n++) {
      const lexicon = randomLexicon(r, 80);
      const { ctc, letterSteps } = randomLine(r, lexicon, false);
      // a step listed twice, and steps not of the line: still bounds
      const listed = n % 5 === 0 ? [...letterSteps, letterSteps[0] ?? 0, -3, ctc.steps + 2] : letterSteps;
      const used = Int32Array.from({ length: ctc.classes - 1 }, (_, i) => i + 1);
      const bounds = scoreBounds(ctc, lexicon.words, used, listed);
      const top = stepTops(ctc);
      lexicon.words.forEach((w, i) => {
        const { score } = scoreOf(ctc, w, listed);
        expect(bounds[i]!).toBeLessThanOrEqual(score + 1e-9);
        if (letterSteps.length >= 24) {
          counted++;
          let plain = 0;
          for (const k of w.classes) plain += Math.min(...Array.from({ length: ctc.steps }, (_, t) => top[t]! - ctc.logProbs[t * ctc.classes + k]!));
          if (bounds[i]! > plain + 4) tighter++;
        }
      });
      // a word not wanted is bounded by 0
      expect(scoreBounds(ctc, lexicon.words, used, listed, top, (i) => i > 0)[0]).toBe(0);
    }
    expect(tighter).toBeGreaterThan(0.8 * counted);
  });
});
