/**
 * The grading companies and how their names are printed (../shared/catalogs/slabs): one vocabulary
 * for the label finder (src/vision/cards/slab-label.ts), the label reader
 * (src/services/recognition/slab-label-text.ts) and the price files (price-layouts.ts). It lives
 * here, below both vision and services, so neither imports the other for it.
 */

export const GRADING_COMPANIES = ['PSA', 'BGS', 'CGC', 'SGC', 'TAG', 'ACE', 'HGA'] as const;
export type GradingCompany = (typeof GRADING_COMPANIES)[number];
export type Company = GradingCompany | 'OTHER';

/**
 * Company names as labels print them: the short mark (a logo), tested on an upper-case line, and
 * the name in full, tested on the line's letters alone (`BECKETT`, `TAG GRADING` → `TAGGRADING`).
 */
export const COMPANY_NAMES: readonly (readonly [GradingCompany, RegExp, RegExp])[] = [
  ['PSA', /\bPSA\b/, /PROFESSIONALSPORTSAUTHENTICATOR|PSADNA/],
  ['BGS', /\b(BGS|BVG|BCCG)\b/, /BECKETT/],
  ['CGC', /\bCGC\b/, /CERTIFIEDGUARANTY/],
  ['SGC', /\bSGC\b/, /SPORTSCARDGUARANTY/],
  // not TAG TEAM (a Pokémon card type, printed in the top band of a raw card as in names)
  ['TAG', /\bTAG\b(?!\s*-?\s*TEAM)/, /TAGGRADING|TECHNICALAUTHENTICATION/],
  // ACE alone, or beside its grade: a card's name may hold the word (ACE SPEC)
  ['ACE', /^ACE$|\bACE\s?(10|[1-9])\b/, /ACEGRADING/],
  ['HGA', /\bHGA\b/, /HYBRIDGRADING/],
];

const lettersOf = (line: string): string => line.toUpperCase().replace(/[^A-Z]/g, '');

/** Graders outside the seven: their labels are `OTHER`, not one of the seven by a word they share (CBCS and PGX grade comics, h165). */
export const OTHER_GRADER_MARKS = ['CSG', 'ISA', 'GMA', 'KSA', 'PGS', 'AGS', 'MNT', 'GAI', 'PCA', 'SCG', 'AGC', 'CBCS', 'PGX'] as const;
export const OTHER_GRADERS = new RegExp(`\\b(${OTHER_GRADER_MARKS.join('|')})\\b`);
/** The same marks with the word GRADING, and any mark but the seven's so written, as the OCR reads them: without the space (`GMAGRADING`). */
const SEVEN_MARKS = ['PSA', 'BGS', 'BVG', 'BCCG', 'BECKETT', 'CGC', 'SGC', 'TAG', 'ACE', 'HGA'];
/** Words that end in GRADING and name no grader. */
const NOT_MARKS = ['UP', 'RE', 'PRE', 'DE', 'DOWN'];
const OTHER_GRADER_GLUED = new RegExp(`^(${OTHER_GRADER_MARKS.join('|')})GRADING`);
/** Any mark of 2–5 letters before GRADING, the line's only words (spaces kept: `THIS A GRADING` is no mark). */
const ANY_GRADER = new RegExp(`^(?!(${[...SEVEN_MARKS, ...NOT_MARKS].join('|')}) ?GRADING$)[A-Z]{2,5} ?GRADING$`);

/**
 * Whether a line names a grader outside the seven: its mark as a word, or glued to GRADING as PP-OCR reads a label's
 * words (it drops the spaces: `GMA GRADING` read `GMAGRADING` was no mark, and the layout made the label PSA's, h250).
 * A line naming one of the seven in full (`TAGGRADING`, `ACEGRADING`) is theirs.
 */
export function namesOtherGrader(line: string): boolean {
  if (OTHER_GRADERS.test(line.toUpperCase())) return true;
  const letters = lettersOf(line);
  const words = line.toUpperCase().replace(/[^A-Z ]/g, '').replace(/\s+/g, ' ').trim();
  return (OTHER_GRADER_GLUED.test(letters) || ANY_GRADER.test(words)) && !COMPANY_NAMES.some(([, , full]) => full.test(letters));
}

/** The companies of the seven a line names, each with whether by its full name. */
export function companiesNamed(line: string): { company: GradingCompany; full: boolean }[] {
  const upper = line.toUpperCase();
  const letters = lettersOf(line);
  return COMPANY_NAMES.flatMap(([company, mark, full]) => {
    const byFull = full.test(letters);
    return byFull || mark.test(upper) ? [{ company, full: byFull }] : [];
  });
}


/**
 * A company as a price file or a user writes it (`PSA`, `Beckett`, `BVG`, `bgs`, `TAG Grading`):
 * one of the seven, as a label read names it, or `OTHER` for any other grader; null when empty.
 */
export function gradingCompanyOf(name: string | null | undefined): Company | null {
  // full-width ＰＳＡ, as a Japanese spreadsheet types it, is PSA (it was OTHER)
  const trimmed = name?.normalize('NFKC').trim();
  if (!trimmed) return null;
  const exact = GRADING_COMPANIES.find((c) => c === lettersOf(trimmed));
  return exact ?? companiesNamed(trimmed)[0]?.company ?? 'OTHER';
}

/**
 * The one company of the seven a grade written with its grader names first (`PSA 10`, `PSA10`,
 * `BGS 9.5`), or null: a price file whose company column is empty (or absent) still prices a slab.
 */
export function companyLeadingGrade(grade: string | null): GradingCompany | null {
  const lead = /^\s*([A-Za-z]+)\s*[-#:]?\s*\d/.exec(grade?.normalize('NFKC') ?? '')?.[1]?.toUpperCase();
  return lead !== undefined && (GRADING_COMPANIES as readonly string[]).includes(lead) ? (lead as GradingCompany) : lead === 'BECKETT' || lead === 'BVG' ? 'BGS' : null;
}
