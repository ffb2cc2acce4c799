import { describe, expect, it } from 'vitest';
import { spotBest, spotWord, type CtcSteps, type EncodedLexicon } from './ctc-spotting.ts';

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
