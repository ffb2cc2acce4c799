import { describe, expect, it } from 'vitest';
import { readLabelText } from './slab-label-text.ts';

// As PP-OCRv4 read the labels of real slabs (../shared/datasets/graded_slabs, test fixture photo).
describe('grading label text', () => {
  it('reads a PSA label: year, number, name, grade words and number, certificate', () => {
    expect(readLabelText(['20O0P.M.JAPANESENEO2', '#197', 'UMBREON', 'NM', 'PROMO', '7', 'PSA', '63055543'])).toEqual({
      year: '2000',
      card_no: '197',
      name: 'UMBREON',
      full_name: '20O0P.M.JAPANESENEO2 #197 UMBREON',
      verbal_grade: 'NM',
      grade: 7,
      certificate_number: '63055543',
    });
    expect(readLabelText(['2005P.M.JPN.MASTER KIT', '#003', 'RAYQUAZA EX-HOLO', 'NM-MT', 'SIDEDECK-1STED.', '8', 'PSA', '70496962'])).toMatchObject({ name: 'RAYQUAZA EX-HOLO', verbal_grade: 'NM-MT', grade: 8 });
  });

  it('reads a BGS label: the overall grade before the subgrades, the certificate with its zeros', () => {
    const f = readLabelText(['1993ALPHA', 'COUNTERSPELLUB', 'ECTTRAGNG', '7.5', 'B', 'GRA', 'D', 'ETT.', 'CENTERING', 'CORNERS8', 'GRNEARMINT+', 'EDGES', '8', 'SURFACE', '8', '0010538585', 'BECKETT']);
    expect(f).toMatchObject({ year: '1993', grade: 7.5, certificate_number: '0010538585', name: 'COUNTERSPELLUB' });
  });

  it('leaves out what it did not read', () => {
    expect(readLabelText(['PSA'])).toEqual({ name: null, full_name: null, year: null, card_no: null, verbal_grade: null, grade: null, certificate_number: null });
  });
});
