import { describe, expect, it } from 'vitest';
import { labelClues, promoPrefix, slabLabelObject, type ReadLabel } from './slab-label-object.ts';
import { readLabelText } from './slab-label-text.ts';

describe('a label as identification clues', () => {
  it('names a black star promo by its series prefix (PSA prints `SWSH BSP #066` for SWSH066)', () => {
    expect(promoPrefix('SWSH BSP')).toBe('SWSH');
    expect(promoPrefix('SWSHBSP')).toBe('SWSH');
    expect(promoPrefix('SM BLACK STAR PROMO')).toBe('SM');
    expect(promoPrefix('S & M BLACK STAR PROMOS')).toBe('SM');
    expect(promoPrefix('XY BLACK STAR PROMO')).toBe('XY');
    expect(promoPrefix('BLACK & WHITE PROMO')).toBe('BW');
    expect(promoPrefix('HGSS PROMO')).toBe('HGSS');
    expect(promoPrefix('DIAMOND & PEARL PROMO')).toBe('DP');
    // not a promo line, a promo of no prefixed series, another language's promo
    expect(promoPrefix('S & M')).toBeNull();
    expect(promoPrefix('JAPANESE PROMO')).toBeNull();
    expect(promoPrefix('SWSH BSP', 'ja')).toBeNull();
    expect(promoPrefix(null)).toBeNull();
  });

  it("searches a Beckett Magic label's name also without the rarity and colour letters printed after it, read glued or apart (s73: card null)", () => {
    // as the OCR reads the BGS Alpha Counterspell (test/fixtures/photos/cards/slab-counterspell_bgs.jpg)
    const glued = readLabelText(['1993ALPHA', 'GR', 'COUNTERSPELLUB', 'B', 'KETT.', 'GRADI', '7.5', 'CENTERING', '7', 'CORNERS', 'NEARMINT+', 'BECKETT', 'EDGES', '8', 'SURFACE', '8', '0010538585']);
    expect(glued.company).toBe('BGS');
    expect(labelClues(glued, '').names.map((n) => [n.text, n.prob])).toEqual([
      ['COUNTERSPELLUB', 1],
      ['COUNTERSPELL', 0.9],
    ]);
    const apart = readLabelText(['1993 ALPHA', 'COUNTERSPELL U B', 'CENTERING 7', 'CORNERS 8', 'EDGES 8', 'SURFACE 8', '7.5', 'NEAR MINT+', 'BECKETT', '0010538585']);
    expect(labelClues(apart, '').names.map((n) => n.text)).toContain('COUNTERSPELL');
    // another company's label, or a name ending in no such letters, keeps its one name
    const psa = readLabelText(['2019 POKEMON S & M', '#SV69', 'FA/UMBREON GX', 'MINT', 'HIDDEN FATES', '9', 'PSA', '72773169']);
    expect(labelClues(psa, '').names).toHaveLength(1);
  });

  it('reads the promo number first and the number as printed after it', () => {
    // img217 of ../shared/datasets/graded_slabs, as PP-OCRv4 read it
    const r = readLabelText(['#066', '2020 POKEMON SWSH BSP', 'MINT', 'CHARIZARD-HOLO', '9', 'PRERELEASE', '72773185']);
    expect(labelClues(r, '').numbers.map((n) => [n.number, n.key, n.form])).toEqual([
      ['SWSH066', 'SWSH66', 'promo'],
      ['066', '66', 'lone'],
    ]);
    const sv = readLabelText(['2019 POKEMON S & M', '#SV69', 'FA/UMBREON GX', 'MINT', 'HIDDEN FATES', '9', 'PSA', '72773169']);
    expect(labelClues(sv, '').numbers.map((n) => n.number)).toEqual(['SV69']);
    // the series on the set line, the promo words on the third: the series' prefix still
    const sm = readLabelText(['2017 POKEMON S & M', '#030', 'PIKACHU', 'MINT', 'BLACK STAR PROMO', '9', 'PSA', '72773100']);
    expect(sm.set).toBe('BLACK STAR PROMO');
    expect(labelClues(sm, '').numbers.map((n) => n.number)).toEqual(['SM030', '030']);
  });

  it('names all four subgrades, null where one was not read (the BGS Counterspell\'s corners)', () => {
    // counterspell_bgs.jpg of ../shared/datasets/graded_slabs, as PP-OCRv4 read it: the corners' 8 was not read
    const lines = ['1993ALPHA', 'GR', 'COUNTERSPELLUB', 'B', 'KETT.', 'GRADI', '7.5', 'CENTERING', '7', 'CORNERS', 'NEARMINT+', 'BECKETT', 'EDGES', '8', 'SURFACE', '8', '0010538585'];
    const r = readLabelText(lines);
    const label = { box: [0, 0, 100, 30], lines: lines.map((text) => ({ text, prob: 0.9, polygon: [] })) } as unknown as ReadLabel;
    const o = slabLabelObject(1, label, r, { width: 100, height: 100 }, null, false) as { _identification: { best_match: { subgrades: unknown } } };
    expect(o._identification.best_match.subgrades).toEqual({ centering: 7, corners: null, edges: 8, surface: 8 });
  });
});
