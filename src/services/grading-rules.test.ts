import { describe, expect, it } from 'vitest';
import { categoryHint, conditionEntry, conditionLabel, damagedTag, geometricMean, gradesOf, weighFrontBack } from './grading-rules.ts';

describe('grading rules', () => {
  it('final is the geometric mean of corners, edges, surface and centering', () => {
    const g = gradesOf({ corners: [10, 10, 10, 10], edges: [9, 9, 9, 9], surface: 8, centering: 10 });
    expect(g.final).toBeCloseTo(Math.round(Math.pow(10 * 9 * 8 * 10, 1 / 4) * 10) / 10, 5);
    expect(geometricMean([4, 9])).toBeCloseTo(6, 5);
    // One bad corner pulls the corners down more than an arithmetic mean would.
    expect(gradesOf({ corners: [10, 10, 10, 2], edges: [10, 10, 10, 10], surface: 10, centering: 10 }).corners).toBe(6.7);
  });

  it('without centering the final grade is of the other three', () => {
    const g = gradesOf({ corners: [9, 9, 9, 9], edges: [9, 9, 9, 9], surface: 9, centering: null });
    expect(g).toMatchObject({ centering: null, final: 9, condition: 'Mint' });
  });

  it('front and back weigh 70/30 unless told otherwise', () => {
    const front = gradesOf({ corners: [10, 10, 10, 10], edges: [10, 10, 10, 10], surface: 10, centering: 10 });
    const back = gradesOf({ corners: [5, 5, 5, 5], edges: [5, 5, 5, 5], surface: 5, centering: 5 });
    expect(weighFrontBack(front, back).final).toBe(8.5);
    expect(weighFrontBack(front, back, 0.5).final).toBe(7.5);
    // exact halves round up as the decimal reads (5.95 is 5.9499… in binary: 5.9 and "Very Good" before, h196)
    const g = (final: number) => ({ ...front, final });
    expect(weighFrontBack(g(7), g(3.5))).toMatchObject({ final: 6, condition: 'Excellent' });
    expect(weighFrontBack(g(5.8), g(6.3)).final).toBe(6);
    expect(weighFrontBack(g(4.6), g(4.1)).final).toBe(4.5);
    expect(weighFrontBack(front, back, 1).final).toBe(10);
    // A side weighted 0 gives nothing, not even the centering the other side lacks.
    const unmeasured = gradesOf({ corners: [10, 10, 10, 10], edges: [10, 10, 10, 10], surface: 10, centering: null });
    expect(weighFrontBack(unmeasured, back, 1).centering).toBeNull();
    expect(weighFrontBack(front, unmeasured, 0).centering).toBeNull();
    expect(weighFrontBack(unmeasured, back, 0.7).centering).toBe(5);
  });

  it('labels follow the documented thresholds on every scale', () => {
    expect([10, 9.5, 9, 8, 7, 5, 3.5, 2.5, 1].map((f) => conditionLabel(f, 'grading'))).toEqual(['Gem Mint', 'Gem Mint', 'Mint', 'Near Mint', 'Excellent', 'Very Good', 'Good', 'Fair', 'Poor']);
    expect(conditionLabel(6.5, 'default')).toBe('Lightly Played');
    expect(conditionLabel(6.5, 'default_sports')).toBe('Excellent');
    expect(conditionEntry(8, 'five_step', 'five_step')).toEqual({ id: 0, name: 'Near Mint', value: 8, label: 'Near Mint', mode: 'five_step', scale: ['Near Mint', 'Lightly Played', 'Moderately Played', 'Heavily Played', 'Damaged'], scale_value: 5, max_scale_value: 5 });
    expect(conditionEntry(1.5, 'seven_step', 'seven_step')).toMatchObject({ label: 'Poor', scale_value: 1, max_scale_value: 7 });
  });
});

describe('card tags', () => {
  it('Damaged follows the worst corner, edge or surface grade: 50/50 at 4, sure a grade and a half away', () => {
    const at = (worst: number) => damagedTag({ corners: [9, 9, worst, 9], edges: [9, 9, 9, 9], surface: 9 });
    expect(at(4).find((t) => t.name === 'Yes')!.prob).toBe(0.5);
    expect(at(2.5)[0]).toEqual({ id: 1, name: 'Yes', prob: 0.953 });
    expect(at(5.5)[0]).toEqual({ id: 0, name: 'No', prob: 0.953 });
    expect(damagedTag({ corners: [9, 9, 9, 9], edges: [9, 9, 9, 9], surface: 2 })[0]!.name).toBe('Yes');
    // The two entries always add up to 1.
    for (const w of [1, 3.7, 4.2, 8]) expect(at(w).reduce((s, t) => s + t.prob, 0)).toBeCloseTo(1, 3);
  });

  it('reads a client’s Category hint, and ignores what it cannot place', () => {
    expect(categoryHint('Sports')).toBe('Sport');
    expect(categoryHint('sport cards')).toBe('Sport');
    expect(categoryHint('Trading Card Game')).toBe('Trading Card Game');
    expect(categoryHint('tcg')).toBe('Trading Card Game');
    expect(categoryHint('Baseball')).toBe('Sport');
    expect(categoryHint('Sport Card/Basketball')).toBe('Sport');
    expect(categoryHint('comics')).toBeUndefined();
    expect(categoryHint(3)).toBeUndefined();
  });
});
