import type { Company, GradingCompany } from '../../catalog/grading-companies.ts';

/**
 * Grading companies and the grade words their labels print, each mapped to its number. The
 * facts are ../shared/catalogs/slabs (README.md and grading_scales.json, with their sources):
 *
 * - PSA: GEM MT 10, MINT 9, NM-MT 8, NM 7, EX-MT 6, EX 5, VG-EX 4, VG 3, GOOD 2, FR 1.5, PR 1
 *   (label wording observed on the real slabs); half grades between 2 and 9 (written here as the
 *   words with "+", the common way of printing a half); AUTHENTIC and ALTERED AUTHENTIC carry no number.
 * - BGS (Beckett): PRISTINE 10 (BLACK LABEL: a Pristine 10 with four 10 subgrades), GEM MINT 9.5,
 *   MINT 9, NM-MT+ 8.5 … POOR 1 in halves; "NEAR MINT+" is observed on a real label.
 * - CGC: cards PRISTINE 10 and GEM MINT 10 (PERFECT 10 on the 2020–2023 labels), MINT+ 9.5 …
 *   POOR 1; comics 10.0 GEM MINT, 9.9 MINT, 9.8 NM/M … 2.5 G. AU / AA authentic without a number.
 * - SGC: PRISTINE 10 and GEM MINT 10, MINT+ 9.5, MINT 9, then NM/MT, NM, EX/NM, EX, VG/EX, VG,
 *   GOOD, FAIR, POOR with halves; A (authentic).
 * - HGA: FLAWLESS 10, PRISTINE MINT 10, GEM MINT 9.5, MINT 9, NM/MINT+ 8.5, NM/MINT 8, …
 * - TAG and ACE: a 1–10 scale whose words beyond the top (ACE's GEM MINT 10; TAG's score beside
 *   the grade) the facts do not give; their words are read with every company's vocabulary and
 *   the printed number decides.
 *
 * Words are compared in a compact form: upper case, spaces dropped, and a hyphen, slash or dot
 * between letters dropped (`NM - MT`, `NM-MT`, `NM/MT` → `NMMT`), while a trailing `+` or `-`
 * stays (`NM+` 7.5, CGC comics' `NM-` 9.2).
 */

// the companies are one vocabulary with the label finder's and the price files' (src/catalog/grading-companies.ts)
export { GRADING_COMPANIES, type Company, type GradingCompany } from '../../catalog/grading-companies.ts';

/** A scale: the printed words (as one of the company's labels prints them) and the grade. */
type Scale = readonly (readonly [string, number | null])[];

/** The halves below a whole grade, printed with `+` (PSA between 2 and 9, SGC, CGC, Beckett). */
const plus = (scale: Scale, from: number, to: number): Scale =>
  scale.filter(([, g]) => g !== null && Number.isInteger(g) && g >= from && g <= to).map(([w, g]) => [`${w}+`, g! + 0.5] as const);

const PSA_BASE: Scale = [
  ['GEM MT', 10], ['GEM-MT', 10], ['GEM MINT', 10], ['MINT', 9], ['NM-MT', 8], ['NM', 7], ['EX-MT', 6], ['EX', 5], ['VG-EX', 4], ['VG', 3], ['GOOD', 2], ['FR', 1.5], ['FAIR', 1.5], ['PR', 1], ['POOR', 1],
  ['AUTHENTIC', null], ['ALTERED AUTHENTIC', null], ['AUTHENTIC ALTERED', null], ['AA', null],
];
const BGS: Scale = [
  ['BLACK LABEL', 10], ['PRISTINE', 10], ['GEM MINT', 9.5], ['MINT', 9], ['NM-MT+', 8.5], ['NM-MT', 8], ['NEAR MINT+', 7.5], ['NM+', 7.5], ['NEAR MINT', 7], ['NM', 7], ['EX-MT+', 6.5], ['EX-MT', 6], ['EXCELLENT+', 5.5], ['EX+', 5.5], ['EXCELLENT', 5], ['EX', 5],
  ['VG-EX+', 4.5], ['VG-EX', 4], ['VERY GOOD+', 3.5], ['VG+', 3.5], ['VERY GOOD', 3], ['VG', 3], ['G-VG', 2.5], ['GOOD', 2], ['FAIR', 1.5], ['POOR', 1],
];
const CGC_CARDS: Scale = [
  ['PERFECT', 10], ['PRISTINE', 10], ['GEM MINT', 10], ['MINT+', 9.5], ['MINT', 9], ['NM/MINT+', 8.5], ['NM/MINT', 8], ['NEAR MINT+', 7.5], ['NEAR MINT', 7], ['EX/NM+', 6.5], ['EX/NM', 6], ['EXCELLENT+', 5.5], ['EXCELLENT', 5],
  ['VG/EX+', 4.5], ['VG/EX', 4], ['VERY GOOD+', 3.5], ['VERY GOOD', 3], ['GOOD+', 2.5], ['GOOD', 2], ['FAIR', 1.5], ['POOR', 1], ['AUTHENTIC ALTERED', null], ['AUTHENTIC', null], ['AU', null], ['AA', null],
];
const CGC_COMICS: Scale = [
  ['GEM MINT', 10], ['MINT', 9.9], ['NM/M', 9.8], ['NM+', 9.6], ['NM', 9.4], ['NM-', 9.2], ['VF/NM', 9], ['VF+', 8.5], ['VF', 8], ['VF-', 7.5], ['FN/VF', 7], ['FN+', 6.5], ['FN', 6], ['FN-', 5.5], ['VG/FN', 5], ['VG+', 4.5], ['VG', 4], ['VG-', 3.5], ['G/VG', 3], ['G', 2.5],
];
const SGC_BASE: Scale = [
  ['PRISTINE', 10], ['GEM MINT', 10], ['MINT+', 9.5], ['MINT', 9], ['NM/MT', 8], ['NM', 7], ['EX/NM', 6], ['EX', 5], ['VG/EX', 4], ['VG', 3], ['GOOD', 2], ['G', 2], ['FAIR', 1.5], ['POOR', 1], ['AUTHENTIC', null],
];
const HGA_BASE: Scale = [
  ['FLAWLESS', 10], ['PRISTINE MINT', 10], ['GEM MINT', 9.5], ['MINT', 9], ['NM/MINT+', 8.5], ['NM/MINT', 8], ['NEAR MINT+', 7.5], ['NEAR MINT', 7], ['NM', 7],
];

const SCALES: Record<Exclude<GradingCompany, 'TAG' | 'ACE'>, Scale> = {
  PSA: [...PSA_BASE, ...plus(PSA_BASE, 2, 8)],
  BGS,
  CGC: CGC_CARDS,
  SGC: [...SGC_BASE, ...plus(SGC_BASE, 2, 8)],
  HGA: HGA_BASE,
};

/** Upper case, spaces gone, a hyphen, slash or dot between letters gone; a trailing + or - kept. */
export const compact = (s: string): string =>
  s
    .toUpperCase()
    .replace(/\s+/g, '')
    .replace(/([A-Z])[-/.]+(?=[A-Z])/g, '$1');

type Vocabulary = Map<string, { printed: string; grades: (number | null)[]; cardGrades: (number | null)[] }>;

/** The words of `scales`; comics scales' grades count among `grades` but not `cardGrades`. */
function vocabulary(scales: Scale[], comics: Scale[] = []): Vocabulary {
  const v: Vocabulary = new Map();
  for (const scale of [...scales, ...comics])
    for (const [printed, grade] of scale) {
      const key = compact(printed);
      const entry = v.get(key) ?? { printed, grades: [], cardGrades: [] };
      v.set(key, entry);
      if (!entry.grades.includes(grade)) entry.grades.push(grade);
      if (!comics.includes(scale) && !entry.cardGrades.includes(grade)) entry.cardGrades.push(grade);
    }
  return v;
}

/** Every company's words: TAG, ACE and OTHER labels are read with it. */
const ANY = vocabulary(Object.values(SCALES), [CGC_COMICS]);
const BY_COMPANY = new Map<Company, Vocabulary>([...Object.entries(SCALES).map(([c, s]) => [c as Company, vocabulary([s], c === 'CGC' ? [CGC_COMICS] : [])] as const), ['TAG', ANY], ['ACE', ANY], ['OTHER', ANY]]);

/** PSA's qualifiers printed beside the grade (grading_scales.json): off-center, staining, print defect, out of focus, marks, miscut. */
export const QUALIFIERS = ['OC', 'ST', 'PD', 'OF', 'MK', 'MC'] as const;

export interface GradeWords {
  /** The words as the company prints them (`NM-MT`, `GEM MT`, `NEAR MINT+`). */
  printed: string;
  /** The grades the words name on this company's scales (null: authentic, no number). */
  grades: (number | null)[];
  /** The same on card scales only: a comics label prints its grade as a tenth beside the words (`9.8 NM/M`). */
  cardGrades: (number | null)[];
  /** What of the compact line the words did not cover (a grade number, a qualifier, OCR debris). */
  rest: string;
}

/**
 * The grade words on one line of a label: the longest phrase of the company's vocabulary (else
 * any company's) in the compact line. A line is grade words only when little else is on it
 * (digits, `.`, `+` and a qualifier aside): `TEXAS` holds `EX` but is no grade.
 */
export function gradeWordsOf(line: string, company: Company): GradeWords | null {
  const c = compact(line);
  if (!c) return null;
  for (const vocab of company === 'OTHER' || company === 'TAG' || company === 'ACE' ? [ANY] : [BY_COMPANY.get(company)!, ANY]) {
    let best: { key: string; at: number } | null = null;
    for (const key of vocab.keys()) {
      const at = c.indexOf(key);
      if (at >= 0 && (!best || key.length > best.key.length)) best = { key, at };
    }
    if (!best) continue;
    // a one- or two-letter word (G, EX, NM, FR) must stand alone among digits and signs; a longer
    // one may carry a little OCR debris (`GRNEARMINT+`: the "GRADE" beside it); a qualifier after it is no debris
    const rest = c.slice(0, best.at) + ' ' + c.slice(best.at + best.key.length);
    let letters = rest.replace(/[^A-Z]/g, '');
    if (QUALIFIERS.some((q) => letters.endsWith(q))) letters = letters.slice(0, -2);
    if (letters.length > (best.key.length >= 4 ? 3 : 0)) continue;
    const entry = vocab.get(best.key)!;
    return { printed: entry.printed, grades: entry.grades, cardGrades: entry.cardGrades, rest: rest.trim() };
  }
  return null;
}

/** The grade number on a line: 1–10 with a half (CGC comics: a tenth, 0.5–9.9; HGA: `10.0`). */
export const GRADE_NUMBER = /(?<![\d.])(10(?:\.0)?|[0-9]\.[0-9]|[1-9])(?![\d.]|\/)/;

/** Whether `grade` is one the company's scale has (every grade 1–10 in halves, or a comics tenth, for companies without a table). */
export function onScale(company: Company, grade: number): boolean {
  if (grade === 10 || (grade >= 1 && grade < 10 && Number.isInteger(grade * 2))) return true;
  return company === 'CGC' || company === 'OTHER' ? CGC_COMICS.some(([, g]) => g === grade) || grade === 0.5 : false;
}

/** The grading site's page of a certificate, where the company publishes one (PSA's cert page: grading_scales.json `verify_url_pattern`). */
export function certificateLink(company: Company, cert: string | null): Record<string, string> {
  if (company === 'PSA' && cert) return { psacard: `https://www.psacard.com/cert/${cert}` };
  return {};
}
