import { describe, expect, it } from 'vitest';
import { gradingOutcome, gradingPicture, matchPrice, recognitionOutcome, webhookNote } from './request-summary.ts';

const bad = { _status: { code: 422, text: 'The card is 84 px across; centering and grading need at least 120.' } };
const graded = (final: number) => ({ _status: { code: 200, text: 'OK' }, grades: { final }, _exact_url_card: 'http://x/media/e.jpg', _full_url_card: 'http://x/media/f.jpg' });

describe('gradingOutcome', () => {
  it('says a request whose only photo failed was not graded (h342: it read "Done")', () => {
    expect(gradingOutcome([bad])).toBe('1 of 1 not graded');
  });
  it('gives the grade of a single graded photo, and counts where there are several', () => {
    expect(gradingOutcome([graded(8.6)])).toBe('grade 8.6 of 10');
    expect(gradingOutcome([{ _status: { code: 200, text: 'OK' }, grades: { centering: 9.5 } }, bad])).toBe('1 of 2 graded (centering 9.5 of 10), 1 not graded');
    expect(gradingOutcome([graded(9), graded(7)])).toBe('2 of 2 graded');
    expect(gradingOutcome([graded(9), graded(7)], { final: 8.4 })).toBe('grade 8.4 of 10');
  });
});

describe('gradingPicture', () => {
  it("takes the straightened card over the whole photo, and none from a failed record", () => {
    expect(gradingPicture([graded(9)])).toBe('http://x/media/e.jpg');
    expect(gradingPicture([{ ...bad, _full_url_card: 'http://x/media/f.jpg' }])).toBeUndefined();
  });
});

describe('recognitionOutcome', () => {
  const card = (name: string | null) => ({ name: 'Card', id: 1, bound_box: [0, 0, 1, 1], _identification: { best_match: name ? { name } : null, alternatives: [], distances: [] } });
  it('names the cards found, then what was not identified and what could not be read', () => {
    expect(recognitionOutcome([{ _status: { code: 200, text: 'OK' }, _objects: [card('Lairon')] }, { _status: { code: 200, text: 'OK' }, _objects: [card(null)] }, { _status: { code: 400, text: 'Error Loading Image' } }])).toBe('Lairon · 1 not identified · 1 of 3 not read');
  });
});

describe('matchPrice', () => {
  it("is the first statistic's median, in its currency, and nothing without statistics", () => {
    expect(matchPrice({ price_stats: [{ stats_type: 'overall', interval: '30d', value: { median: 2.5 } }] })).toBe('$2.50');
    expect(matchPrice({ name: 'x' })).toBeUndefined();
  });
});

describe('webhookNote', () => {
  it('names a failed or pending webhook and leaves the rest unsaid (h355)', () => {
    expect(['failed', 'pending', 'delivered', 'waiting', null, undefined].map(webhookNote)).toEqual(['webhook failed', 'webhook pending', undefined, undefined, undefined, undefined]);
  });
});
