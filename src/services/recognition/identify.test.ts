import { describe, expect, it } from 'vitest';
import { readCardText, type CardTextLine } from './card-text.ts';
import { ART_NONE, artScore, bestMatch, editDistance, identify, MIN_SCORE, nameLikeness, scoreCandidate, WEIGHTS, type ArtEvidence, type CandidateCard, type CandidateSource } from './identify.ts';
import { normalizeName } from '../../catalog/card-keys.ts';

const card = (key: string, name: string, number: string, setTotal: number | null, year: string | null, extra: Partial<CandidateCard> = {}): CandidateCard => ({
  key,
  name,
  nameNorm: normalizeName(name),
  number,
  numberNorm: number.replace(/^([A-Z]*)0*(\d)/, '$1$2'),
  setCode: key.split('-')[0]!,
  setCodes: [key.split('-')[0]!.toUpperCase()],
  setTotal,
  year,
  hp: null,
  regulationMark: null,
  ...extra,
});
/** Lines of a bottom band (and a name on top) as the OCR returns them. */
const read = (rows: [string, number][]): ReturnType<typeof readCardText> => readCardText(rows.map(([text, y]): CardTextLine => ({ text, prob: 0.9, box: { x0: 0.05, y0: y, x1: 0.4, y1: y + 0.03 } })));

// Two sets of 159 cards: Crown Zenith (2023, ©2022) and Journey Together (2025).
const zenith105 = card('swsh12pt5-105', 'Radiant Eternatus', '105', 159, '2023', { hp: 170, regulationMark: 'F' });
const journey105 = card('sv9-105', 'Fezandipiti', '105', 159, '2025', { hp: 100, regulationMark: 'I' });
const other105 = card('sv2-105', 'Tinkaton', '105', 193, '2023');
const promo = card('swshp-SWSH131', 'Galarian Moltres V', 'SWSH131', null, null);
const source = (cards: CandidateCard[]): CandidateSource => ({
  byNumber: async (k) => cards.filter((c) => c.numberNorm === k),
  byName: async (t, limit) => cards.filter((c) => nameLikeness(normalizeName(t), c.nameNorm) >= 0.75).slice(0, limit),
  byKeys: async (keys) => cards.filter((c) => keys.includes(c.key)),
});
/** Artwork evidence: the distances of the cards that have a reference. */
const artOf = (distances: Record<string, number>): ArtEvidence => ({
  distance: (k) => distances[k] ?? null,
  nearest: Object.entries(distances).filter(([, d]) => d < ART_NONE).sort((a, b) => a[1] - b[1]).map(([k]) => k),
});

describe('identification', () => {
  it('needs more than the number: the set total, year, HP or name must agree too', () => {
    const alone = scoreCandidate(other105, read([['105', 0.95]]));
    expect(alone.evidence.number).toBe('same');
    expect(alone.score).toBeLessThan(MIN_SCORE);
    const withTotal = scoreCandidate(other105, read([['105/193', 0.93]]));
    expect(withTotal.evidence.total).toBe('same');
    expect(withTotal.score).toBeGreaterThanOrEqual(MIN_SCORE);
    expect(scoreCandidate(zenith105, read([['105/193', 0.93]])).evidence.total).toBe('differs');
  });

  it('gives no match when two sets share the number and total, and the year tells them apart', async () => {
    const src = source([zenith105, journey105, other105]);
    expect(bestMatch(await identify(read([['105/159', 0.93]]), src))).toBeNull();
    const m = bestMatch(await identify(read([['105/159', 0.93], ['©2022 Pokémon', 0.97]]), src));
    expect(m?.card.key).toBe('swsh12pt5-105');
    expect(m?.evidence.year).toBe('near');
  });

  it('tells sets of the same size apart by the set code printed on the card', async () => {
    const sv1 = card('sv1-45', 'Lechonk', '045', 198, '2023', { setCodes: ['SV1', 'SVI'] });
    const swsh6 = card('swsh6-45', 'Glastrier', '045', 198, '2021', { setCodes: ['SWSH6', 'CRE'] });
    const src = source([sv1, swsh6]);
    expect(bestMatch(await identify(read([['045/198', 0.95]]), src))).toBeNull();
    const m = bestMatch(await identify(read([['GSVIFR 045/198', 0.95]]), src));
    expect(m?.card.key).toBe('sv1-45');
    expect(m?.evidence.setCode).toBe('same');
  });

  it('takes a promo code that only one card has', async () => {
    const src = source([promo, zenith105]);
    const m = bestMatch(await identify(read([['SWSH131', 0.93]]), src));
    expect(m?.card.key).toBe('swshp-SWSH131');
    expect(m?.evidence.uniqueCode).toBe(true);
  });

  it('counts a contradicting HP or regulation mark against a candidate', () => {
    const clues = readCardText([
      { text: 'PV 100', prob: 0.9, box: { x0: 0.6, y0: 0.04, x1: 0.9, y1: 0.08 } },
      { text: 'I 105/159', prob: 0.9, box: { x0: 0.05, y0: 0.93, x1: 0.3, y1: 0.96 } },
    ]);
    const a = scoreCandidate(journey105, clues);
    const b = scoreCandidate(zenith105, clues);
    expect(a.evidence.hp).toBe('same');
    expect(b.evidence.hp).toBe('differs');
    expect(a.score).toBeGreaterThan(b.score);
  });

  it('finds a card by its name where no number was read', async () => {
    const src = source([zenith105, journey105, card('sv3pt5-25', 'Pikachu', '025', 165, '2023', { hp: 60 })]);
    const clues = readCardText([
      { text: 'Pikachu', prob: 0.95, box: { x0: 0.2, y0: 0.04, x1: 0.5, y1: 0.09 } },
      { text: '60', prob: 0.95, box: { x0: 0.7, y0: 0.04, x1: 0.8, y1: 0.09 } },
    ]);
    const m = bestMatch(await identify(clues, src));
    expect(m?.card.key).toBe('sv3pt5-25');
    expect(m?.evidence.name).toBe(1);
  });

  it('identifies a card by its artwork alone when the reference is near and no other is', async () => {
    const pikachu = card('sv3pt5-25', 'Pikachu', '025', 165, '2023');
    const src = source([zenith105, journey105, pikachu]);
    const nothingRead = read([]);
    const m = bestMatch(await identify(nothingRead, src, 5, 2, false, artOf({ 'sv3pt5-25': 8, 'swsh12pt5-105': 75 })));
    expect(m?.card.key).toBe('sv3pt5-25');
    expect(m?.evidence.art).toBe(8);
    // an artwork only somewhat alike is a clue, not an identity
    expect(bestMatch(await identify(nothingRead, src, 5, 2, false, artOf({ 'sv3pt5-25': 40 })))).toBeNull();
  });

  it('tells two printings the text cannot tell apart by their artwork, and counts a different artwork against a candidate', async () => {
    const src = source([zenith105, journey105, other105]);
    const clues = read([['105/159', 0.93]]);
    expect(bestMatch(await identify(clues, src))).toBeNull();
    const m = bestMatch(await identify(clues, src, 5, 2, false, artOf({ 'sv9-105': 12, 'swsh12pt5-105': 110 })));
    expect(m?.card.key).toBe('sv9-105');
    expect(scoreCandidate(zenith105, clues, new Map(), artOf({ 'swsh12pt5-105': 110 })).score).toBe(scoreCandidate(zenith105, clues).score + WEIGHTS.artDiffers);
  });

  it('scores artwork from full at 20 bits to nothing at 60', () => {
    expect(artScore(null)).toBe(0);
    expect(artScore(0)).toBe(WEIGHTS.art);
    expect(artScore(20)).toBe(WEIGHTS.art);
    expect(artScore(40)).toBeCloseTo(WEIGHTS.art / 2, 9);
    expect(artScore(60)).toBe(0);
    expect(artScore(89)).toBe(0);
    expect(artScore(90)).toBe(WEIGHTS.artDiffers);
  });

  it('measures names by edits', () => {
    expect(editDistance('pikachu', 'pikachv')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(nameLikeness('pikachv', 'pikachu')).toBeCloseTo(6 / 7, 6);
    expect(nameLikeness('', 'pikachu')).toBe(0);
  });
});
