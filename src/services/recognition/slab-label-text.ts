import { COMPANY_NAMES, companiesNamed, namesOtherGrader } from '../../catalog/grading-companies.ts';
import type { Finish } from '../../catalog/printing-finish.ts';
import { labelFinish, partedFinishWords } from './slab-label-finish.ts';
import { compact, GRADE_NUMBER, gradeWordsOf, onScale, QUALIFIERS, type Company, type GradeWords } from './slab-label-grades.ts';

/**
 * What a grading label says, from its OCR lines (src/vision/cards/slab-label.ts reads them): the
 * company, year, card number, name, the grade in words and as a number, a qualifier, subgrades
 * and the certificate number. PSA prints "YEAR GAME SET", "#NUM", "NAME", the grade words, the
 * variety, the grade, "PSA" and the certificate; BGS the year and set, the name, the subgrades and
 * the overall grade. The words and certificate formats come from ../shared/catalogs/slabs (see
 * slab-label-grades.ts), not from the photos read. Nothing is guessed: a field the text does not
 * give is null.
 */
export interface LabelFields {
  name: string | null;
  full_name: string | null;
  year: string | null;
  card_no: string | null;
  verbal_grade: string | null;
  grade: number | null;
  certificate_number: string | null;
}

export interface LabelReading extends LabelFields {
  company: Company;
  /** 1 when the label names its company; less when the company is told by its layout alone (PSA's, Beckett's); 1 for OTHER. */
  companyProb: number;
  /** PSA's qualifier (`OC`, `ST`, `PD`, `OF`, `MK`, `MC`), when printed. */
  qualifier: string | null;
  /** Subgrades read (Beckett, HGA, ACE, legacy CGC): `centering`, `corners`, `edges`, `surface`. */
  subgrades: Partial<Record<Subgrade, number>> | null;
  /** TAG's three-digit score, when printed. */
  score: number | null;
  /** The game or maker opening the set line (`POKEMON`, `TOPPS`), as printed. */
  brand: string | null;
  /**
   * The set: the rest of the set line after the year and brand; on PSA's labels whose set line has only a language
   * or an era there, the set its third line names (`HOLON PHANTOMS`, its `1ST ED.` left out).
   */
  set: string | null;
  /** The rest of the set line after the year and brand, whatever `set` took (a promo series' prefix is told by it). */
  setLineRest: string | null;
  /** ISO 639-1 of the printing when the label names a language (`JAPANESE` → `ja`), else null. */
  lang: string | null;
  /** Variety words the label prints (`HOLO`, `REVERSE FOIL`, `FULL ART`). */
  rarity: string | null;
  /** The finish the label says the copy has (`- HOLO`, `REV.FOIL`, `NON-HOLO`: slab-label-finish.ts), else null. */
  finish: Finish | null;
  /** The name without the label's variety marks (`FA/UMBREON GX - HOLO` → `UMBREON GX`), for catalog search. */
  searchName: string | null;
}

/** A line as read: its text and, when known, its outline (taller text is the grade on most labels). */
export type LabelLine = string | { text: string; polygon?: readonly (readonly [number, number])[] };

type Subgrade = 'centering' | 'corners' | 'edges' | 'surface';
const SUBGRADES: [Subgrade, RegExp][] = [
  ['centering', /CENTER/],
  ['corners', /CORNER/],
  ['edges', /EDGE/],
  ['surface', /SURFACE/],
];

const FURNITURE = /\b(PSA|BGS|BECKETT|CGC|SGC|HGA|TAG|CENTERING|CORNERS|EDGES|SURFACE|GRADE|GRADING|CERT|CERTIFICATION|SERIAL|AUTHENTICATOR)\b|UNIVERSAL\s*GRADE|SIGNATURE\s*SERIES|PAGES\b/;
/** Variety words of the label's third line, never a card's name on their own. */
const VARIETY = /^(PROMO|HOLO|N[O0]N[-\s.]*HOLO|N[O0]N[-\s.]*FOIL|REVERSE ?(FOIL|HOLO)|REV\.? ?(FOIL|HOLO)|1ST ?ED(ITION)?\.?|SHADOWLESS|UNLIMITED|FIRST ?EDITION|ENGLISH|JAPANESE|KOREAN|CHINESE|FRENCH|GERMAN|ITALIAN|SPANISH|PORTUGUESE|[-\s.])+$/;
/**
 * A PSA year line's rest that names no set: a language alone or with an era (`JAPANESE`, `JPN.SWSH`), or the era's
 * short form `S & M` (`2019 POKEMON S & M` / `HIDDEN FATES`). An era written out or alone otherwise (`SWORD & SHIELD`,
 * `SV`, `XY`) is also a base set's name, and stays the set.
 */
const LANGUAGE_OR_ERA = /^(((JAPANESE|JPN|JP|KOREAN|CHINESE|FRENCH|GERMAN|ITALIAN|SPANISH)[-\s.]*)+(S\s?&\s?M|SUN\s?&\s?MOON|SWSH|SWORD\s?&\s?SHIELD|S\s?&\s?V|SCARLET\s?&\s?VIOLET|XY|BW|SM|SV)?|S\s?&\s?M)[-\s.]*$/;
/** A third line that names no set: a rarity or finish, a grade read apart, an autograph, the company's site. */
const NO_SET_LINE = /(^|[^A-Z])(HOLO|HOLOFOIL|FOIL|ETCHED)([^A-Z]|$)|RARE|FULL\s?ART|SECRET|ALT(ERNATE)?\.?\s?ART|AUTO|\.COM|\bDNA\b|^[\s\d.+-]*((GEM|MT|MINT|NM|EX|VG|GOOD|FAIR|POOR|PR|FR)[\s\d.+-]*)+$/;
/** An edition after a PSA third line's set (`HOLON PHANTOMS - 1ST ED.`): the set is what comes before. */
const EDITION_AT_END = /\s*-?\s*(1ST\s?ED(ITION)?\.?|FIRST\s?EDITION|UNLIMITED|SHADOWLESS)\s*$/i;
const BRANDS: [string, RegExp][] = [
  ['POKEMON', /^(POKEMON|POKÉMON|P\.?M\.?(?=[^A-Z]|JAP|JPN|JP\.))/],
  ['TOPPS', /^TOPPS/],
  ['BOWMAN', /^BOWMAN/],
  ['PANINI', /^PANINI/],
  ['DONRUSS', /^DONRUSS/],
  ['FLEER', /^FLEER/],
  ['UPPER DECK', /^UPPER ?DECK/],
  ['SCORE', /^SCORE\b/],
  ['LEAF', /^LEAF\b/],
  // CGC prints the game's whole name (`Magic: The Gathering (1999)`)
  ['MAGIC', /^(MAGIC(\s?:?\s?THE\s?GATHERING)?|MTG)/],
  ['YU-GI-OH!', /^(YU-?GI-?OH!?|KONAMI)/],
  ['ONE PIECE', /^ONE ?PIECE/],
  ['MARVEL', /^MARVEL/],
  ['DC', /^DC\b/],
];
const LANGUAGES: [string, RegExp][] = [
  ['ja', /JAPANESE|JPN|(^|[^A-Z])JP(\.|\b)|JAP\./],
  ['ko', /KOREAN/],
  ['zh', /CHINESE/],
  ['fr', /FRENCH/],
  ['de', /GERMAN/],
  ['it', /ITALIAN/],
  ['es', /SPANISH/],
  ['pt', /PORTUGUESE/],
  ['en', /ENGLISH/],
];
const RARITIES: [string, RegExp][] = [
  ['REVERSE FOIL', /REV(ERSE)?\.?\s?-?FOIL/],
  ['FULL ART', /(^|[^A-Z])F\.?A\.?\//],
  // a whole word, and not NON-HOLO (`HOLON PHANTOMS` is a set, `HOLON'S CASTFORM` a card)
  ['HOLO', /(?<![A-Z]|NON[-\s.]*)HOLO(FOIL)?(?![A-Z])/],
  ['SECRET', /SECRET/],
];

/** Digit look-alikes inside a number that is digits otherwise (`2OOO`, `7O496957`). */
const digitsOf = (s: string) => s.replace(/[Oo]/g, '0').replace(/[Il|]/g, '1');
const YEAR_AT_START = /^([12][0-9Oo]{3})(?![0-9])/;
const YEAR_IN_PARENS = /\(([12][0-9]{3})\)/;
const isYear = (y: string) => Number(y) >= 1880 && Number(y) <= 2049;
/** A card number after `#` (`#197`, `#SV69`, `#006/T`, `#LOB-001`, `#US175`); the name may follow without a space. */
const CARD_NUMBER = /#\s?([A-Z]{0,4}-?[0-9O]{0,3}[0-9][0-9O]{0,3}(?:\/[A-Z0-9]{1,4}|[A-Z](?![A-Z]))?)/;
/** A number read with an O for a zero among its digits (`#LOB-O01`, `#O20`): the O is a 0 there, and so is a prefix of O's only. */
function zeros(n: string): string {
  const m = /^([A-Z]*)(-?)([0-9O]+)(.*)$/.exec(n);
  if (!m) return n;
  const only = /^O+$/.test(m[1]!) && !m[2];
  return (only ? '' : m[1]!) + m[2]! + ((only ? m[1]! : '') + m[3]!).replace(/O/g, '0') + m[4]!;
}
/** The label's subgrade words read glued to a name beside them (`DARKBLASTOISE-HOLOCORNERS`). */
const SUBGRADE_WORD = /\s?(CENTERING|CORNERS|EDGES|SURFACE)\s?$|^(CENTERING|CORNERS|EDGES|SURFACE)\s?/i;

function heightOf(line: LabelLine): number {
  if (typeof line === 'string' || !line.polygon || line.polygon.length < 4) return 0;
  const [a, , , d] = line.polygon;
  return Math.hypot(d![0] - a![0], d![1] - a![1]);
}

/** The company the label names, else the one its layout says (PSA's, Beckett's), else OTHER. */
function companyOf(upper: string[]): { company: Company; prob: number } {
  let named: { company: Company; alone: boolean; at: number } | null = null;
  upper.forEach((line, at) => {
    const c = compact(line);
    for (const { company, full } of companiesNamed(line)) {
      const alone = c === company || full;
      if (!named || (alone && !named.alone)) named = { company, alone, at };
    }
  });
  if (named) return { company: (named as { company: Company }).company, prob: 1 };
  if (upper.some(namesOtherGrader)) return { company: 'OTHER', prob: 1 };
  // no company's mark read (a turned slab, a logo the OCR cannot read): OTHER says "not one of the seven that we could
  // tell", not a grader outside them for certain (h165: an upside-down PSA slab was OTHER at prob 1)
  return { company: 'OTHER', prob: 0.5 };
}

/**
 * The company told by layout when its mark was not read (a logo OCR cannot read, 3 of 17 real PSA
 * labels): PSA's right block — a `#number` line, its grade words, and a certificate of 7–9 digits,
 * with no subgrades (README "Label layout"); Beckett's four subgrades and a 10-digit serial with
 * its leading zeros. Anything else stays OTHER.
 */
function companyByLayout(f: { card_no: string | null; cert: string | null; words: GradeWords | null; subgrades: number; numberLine: boolean }): Company | null {
  if (f.subgrades >= 2 && f.cert && /^00\d{8}$/.test(f.cert)) return 'BGS';
  if (f.subgrades === 0 && f.numberLine && f.cert && /^\d{7,9}$/.test(f.cert) && f.words && gradeWordsOf(f.words.printed, 'PSA') && !/\+|\//.test(f.words.printed)) return 'PSA';
  return null;
}

export function readLabelText(input: readonly LabelLine[]): LabelReading {
  const all = input.map((l) => ({ text: (typeof l === 'string' ? l : l.text).trim(), height: heightOf(l) })).filter((l) => l.text);
  const text = all.map((l) => l.text);
  const upper = text.map((t) => t.toUpperCase());
  const named = companyOf(upper);
  let company = named.company;
  let companyProb = named.prob;

  // certificate: 7–10 digits alone on their line (or after "CERT"), CGC's 7-3 with a hyphen; the company's own length first
  const certs: { cert: string; alone: boolean; at: number }[] = [];
  upper.forEach((line, at) => {
    const bare = line.replace(/^(CERT(IFICATION)?\.?\s*(NO\.?|NUMBER|#)?|SERIAL\s*(NO\.?|#)?|#)\s*[:#]?\s*/, '').replace(/\s/g, '');
    const whole = /^([0-9OoIl|]{7,10})$/.exec(bare) ?? /^(\d{7})-(\d{3})$/.exec(bare);
    if (whole) {
      // one O read for a 0 in a run that is digits otherwise is undone (the two are one shape in these fonts); any
      // other look-alike (8I234567: a 1, a 7, a 4?) leaves the certificate unread, never guessed
      const run = whole.slice(1).join('');
      const d = run.replace(/[Oo]/g, '0');
      if (/^\d+$/.test(d) && (run.match(/\d/g) ?? []).length >= d.length - 1) certs.push({ cert: d, alone: true, at });
      return;
    }
    for (const m of line.matchAll(/(?<![0-9#A-Z-])(\d{7,10})(?![0-9])/g)) certs.push({ cert: m[1]!, alone: false, at });
  });
  const want: Partial<Record<Company, number[]>> = { PSA: [8, 7, 9, 10], BGS: [10], CGC: [10] };
  const rankCert = (c: { cert: string; alone: boolean }) => (c.alone ? 0 : 10) + (want[company]?.includes(c.cert.length) ? want[company]!.indexOf(c.cert.length) : 5);
  const cert = [...certs].sort((a, b) => rankCert(a) - rankCert(b) || a.at - b.at)[0] ?? null;
  const certLine = cert?.at ?? -1;

  // year and set line: a year opening a line (or in parentheses, CGC's "Pokémon (1999)")
  let year: string | null = null;
  let yearLine = -1;
  text.forEach((line, i) => {
    if (year !== null || i === certLine) return;
    const y = YEAR_AT_START.exec(line) ?? YEAR_IN_PARENS.exec(line);
    const v = y ? digitsOf(y[1]!) : null;
    if (v && isYear(v)) {
      year = v;
      yearLine = i;
    }
  });

  // a comic's label: the paper's quality (`WHITE PAGES`, every CGC and CBCS comics label prints it) or a comics publisher;
  // the OCR glues a label's small words (`OFF-WHITETOWHITEPAGES`, `MarvelComics,1/81`), so no boundary before PAGES
  // or after a publisher's first word (h165: the rule never fired on such lines)
  // (the publisher with its COMICS: a card label's set line `1992 MARVEL MASTERPIECES` and the Pokémon `IRON VALIANT EX`
  // are no comic's, h170)
  const comicLabel = upper.some((l) => /PAGES\b/.test(l) || /\b(?:MARVEL|DC|IMAGE|DARK\s*HORSE|IDW|BOOM!?|DYNAMITE|VALIANT|ARCHIE)\s*(?:COMICS|ENTERTAINMENT|PUBLISHING|STUDIOS)/.test(l));

  // card number and a name printed after it on the same line
  let cardNo: string | null = null;
  let numberAt = -1;
  let nameAfterNumber: string | null = null;
  upper.forEach((line, i) => {
    if (cardNo !== null) return;
    const m = CARD_NUMBER.exec(line);
    if (!m) return;
    cardNo = zeros(m[1]!);
    numberAt = i;
    const after = text[i]!.slice(m.index + m[0].length).trim();
    if (/[A-Za-z]{3}/.test(after)) nameAfterNumber = after;
    // a comic's title before its issue (CGC's `Daredevil #323`), on a line that is no set line: the name (h136: the
    // publisher's line after it, `Marvel Comics, 12/93`, was taken); on a comic's label only (h147: a card label's
    // `HIDDEN FATES #SV69`, `PROMO #197` or `BASKETBALL #57` took the name's place)
    else if (i !== yearLine && comicLabel) {
      const before = text[i]!.slice(0, m.index).trim().replace(/[\s,:-]+$/, '');
      if (/[A-Za-z]{3}/.test(before) && !YEAR_AT_START.test(before)) nameAfterNumber = before;
    }
  });
  // a comic's cover date (`Marvel Comics, 12/93`, `Dec 1993`) where no line opens with a year (h136: year null); on a
  // comic's label only (h147: a card's `Dragonite - Holo 4/62` gave 1962)
  if (year === null && comicLabel) {
    text.forEach((line, i) => {
      if (year !== null || i === certLine || i === numberAt) return;
      const short = /[A-Za-z]{3}.*?\b(0?[1-9]|1[0-2])\/([0-9]{2})\b(?![/0-9])/.exec(line);
      const long = /\b(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|SEPT|OCT|NOV|DEC)[A-Z]*\.?\s+((?:19|20)[0-9]{2})\b/i.exec(line);
      const v = short ? (Number(short[2]) > 30 ? `19${short[2]}` : `20${short[2]}`) : (long?.[1] ?? null);
      // its line is no set line: the year only
      if (v && isYear(v)) year = v;
    });
  }

  // grade words, subgrades, the grade number, the qualifier
  const subgrades: Partial<Record<Subgrade, number>> = {};
  const subgradeLines = new Set<number>();
  upper.forEach((line, i) => {
    const sub = SUBGRADES.find(([, re]) => re.test(line));
    if (!sub) return;
    subgradeLines.add(i);
    const n = GRADE_NUMBER.exec(line.replace(/^.*?(CENTER[A-Z]*|CORNER[A-Z]*|EDGE[A-Z]*|SURFACE)/, ''));
    if (n) subgrades[sub[0]] = Number(n[1]);
    else {
      // the number may be read as the next line ("EDGES", "8")
      const next = upper[i + 1]?.trim();
      if (next && /^(10|[1-9](\.5)?)$/.test(next)) {
        subgrades[sub[0]] = Number(next);
        subgradeLines.add(i + 1);
      }
    }
  });
  const wordsFor = (c: Company) => {
    for (let i = 0; i < upper.length; i++) {
      if (i === yearLine || i === numberAt || i === certLine || subgradeLines.has(i) && !/(PRISTINE|MINT|GEM|NEAR|EX|GOOD|FAIR|POOR)/.test(upper[i]!.replace(/CENTER\w*|CORNER\w*|EDGE\w*|SURFACE/g, ''))) continue;
      const w = gradeWordsOf(upper[i]!, c);
      if (w) return { ...w, at: i };
    }
    return null;
  };
  let words = wordsFor(company);
  if (company === 'OTHER' && !upper.some(namesOtherGrader)) {
    const byLayout = companyByLayout({ card_no: cardNo, cert: cert?.cert ?? null, words, subgrades: Object.keys(subgrades).length, numberLine: numberAt >= 0 });
    if (byLayout) {
      company = byLayout;
      companyProb = 0.9;
      words = wordsFor(company);
    }
  }

  // grade numbers: on the words' line, alone on a line (a qualifier beside), never a subgrade
  const numbers: { grade: number; at: number; height: number; withWords: boolean }[] = [];
  upper.forEach((line, i) => {
    if (i === yearLine || i === certLine || (i === numberAt && !words) || subgradeLines.has(i)) return;
    const c = line.replace(/\s/g, '');
    const lone = /^\(?(10(?:\.0)?|[0-9]\.[0-9]|[1-9])\)?(\(?(OC|ST|PD|OF|MK|MC)\)?)?$/.exec(c);
    const onWords = words?.at === i ? GRADE_NUMBER.exec(words.rest.replace(/\s/g, ' ')) : null;
    const n = lone?.[1] ?? onWords?.[1];
    if (n === undefined) return;
    const grade = Number(n);
    if (onScale(company, grade)) numbers.push({ grade, at: i, height: all[i]!.height, withWords: !lone });
  });
  const fits = (g: number) => !words || words.grades.includes(g);
  const chosen = [...numbers].sort((a, b) => Number(fits(b.grade)) - Number(fits(a.grade)) || Number(b.withWords) - Number(a.withWords) || b.height - a.height || a.at - b.at)[0];
  let grade: number | null = chosen?.grade ?? null;
  // the words alone when no number was read, if they name one grade on this company's scale
  if (grade === null && words && words.cardGrades.length === 1) grade = words.cardGrades[0]!;

  let qualifier: string | null = null;
  const gradeLines = new Set([words?.at, chosen?.at].filter((x): x is number => x !== undefined));
  for (const [i, line] of upper.entries()) {
    const c = line.replace(/[\s()]/g, '');
    const q = QUALIFIERS.find((x) => (gradeLines.has(i) && c.endsWith(x)) || c === x);
    if (q && (gradeLines.has(i) || !/[A-Z]{3}/.test(c))) {
      qualifier = q;
      break;
    }
  }

  let score: number | null = null;
  if (company === 'TAG') {
    const s = upper.map((l) => /^(?:TAG\s*)?(?:SCORE\s*)?([1-9]\d{2}|1000)$/.exec(l.replace(/\s(?=\d)/g, ''))).find(Boolean);
    if (s) score = Number(s[1]);
  }

  const setLine = yearLine >= 0 ? text[yearLine]! : null;
  let brand: string | null = null;
  let set: string | null = null;
  if (setLine) {
    let rest = setLine.replace(YEAR_AT_START, '').replace(YEAR_IN_PARENS, '').trim();
    if (yearLine === numberAt) rest = rest.slice(0, rest.indexOf('#')).trim();
    const b = BRANDS.find(([, re]) => re.test(rest.toUpperCase()));
    if (b) {
      brand = b[0];
      rest = rest.slice(b[1].exec(rest.toUpperCase())![0].length).trim();
    }
    set = rest.replace(/^[-\s.]+|[-\s.]+$/g, '') || null;
  }

  // the name: after the number on its line (`#57 MICHAEL JORDAN`), else the first name-like line
  // after the set line (PSA puts the number between), else the first name-like line
  const used = new Set([yearLine, certLine, words?.at ?? -1, chosen?.at ?? -1, ...subgradeLines]);
  const nameLikeOrVariety = (i: number) => {
    const l = upper[i]!;
    return !used.has(i) && /[A-Z]{3}/.test(l) && !CARD_NUMBER.test(l) && !FURNITURE.test(l) && !namesOtherGrader(l) && !COMPANY_NAMES.some(([, mark]) => mark.test(l)) && !gradeWordsOf(l, company);
  };
  const nameLike = (i: number) => nameLikeOrVariety(i) && !VARIETY.test(upper[i]!);
  let name: string | null = nameAfterNumber;
  let nameAt = name !== null ? numberAt : -1;
  const take = (i: number) => {
    name = text[i]!;
    nameAt = i;
  };
  // CGC's trading-card label opens with the game and its year alone (`Pokémon (1999)`, `Magic: The Gathering (1999)`)
  // and prints the set on the next line, the card's name after it: that set line is no name (h302: the set `Prophecy`
  // was the name, and Magic's card `Foil` after it read as the copy's finish); where one line alone follows, it is the name
  // A game no list names (`Disney Lorcana (2023)`) has the same layout, its words and year ending the line (h303: its set
  // line was the name); those words are the game only where two lines follow, since a set may stand there too with the
  // name alone after it (the drawn labels' `POKEMON EVOLUTIONS (2016)`). Not on a comic's label, whose title may carry
  // its volume's year (`Batman Adventures (1992)`)
  let setAt = -1;
  const gameLine = yearLine >= 0 && !YEAR_AT_START.test(text[yearLine]!);
  const gameAlone = gameLine && (brand !== null ? set === null : set !== null && !comicLabel && /\([12][0-9]{3}\)\s*$/.test(text[yearLine]!));
  if (name === null && gameAlone) {
    const after = text.map((_, i) => i).filter((i) => i > yearLine && nameLike(i));
    if (after.length >= 2) {
      if (brand === null) brand = set;
      setAt = after[0]!;
      set = text[setAt]!;
      used.add(setAt);
    }
  }
  if (name === null && yearLine >= 0) for (let i = Math.max(yearLine, setAt) + 1; i < text.length && name === null; i++) if (nameLike(i)) take(i);
  if (name === null) for (let i = 0; i < text.length && name === null; i++) if (nameLike(i)) take(i);
  // no name line, but the set line ends in a word glued to HOLO (`1999 POKEMON GAME CHARIZARDHOLO`, the label read as
  // one line): that word is the name with its finish, parted below as on a line of its own. No set's or name's word ends
  // so (HOLON and HOLOGRAM go on past it); a variety glued to HOLO (`SHADOWLESSHOLO`, `NONHOLO`) is parted off as one,
  // so names nothing; and where no space sets the word apart from the set (`GAMECHARIZARDHOLO`) which letters are whose
  // cannot be told
  const lastWord = name === null && setLine !== null && set !== null ? /\s([A-Z]\S*[A-Z]{2}HOLO)$/i.exec(setLine) : null;
  if (lastWord && set!.endsWith(lastWord[1]!) && partedFinishWords(lastWord[1]!) === lastWord[1]!.toUpperCase()) {
    name = lastWord[1]!;
    nameAt = yearLine;
    set = set!.slice(0, -lastWord[1]!.length).replace(/[-\s.]+$/, '') || null;
  }
  // a number glued before the name whose `#` was not read (`280LUKADONCIC`)
  const glued = name !== null && cardNo === null ? /^([A-Z]{0,3}-?[0-9]{1,4})\s?([A-Z][^0-9]{2,})$/.exec(name) : null;
  if (glued && /[0-9]/.test(glued[1]!)) {
    cardNo = glued[1]!;
    name = glued[2]!;
  }
  if (name !== null) name = name.replace(SUBGRADE_WORD, '').trim() || null;
  // HOLO glued to the name's end (`CHARIZARDHOLO`) is the finish printed after it, the name what comes before: no word of
  // a Pokémon, Magic or Yu-Gi-Oh! card's name ends in "holo" (../shared/catalogs), HOLON and HOLOGRAM go on past it, and
  // a NON before it is NON-HOLO's (h302: the whole-word HOLO of h301 read no rarity or finish there)
  const gluedHolo = name !== null ? /^(.*[A-Z]{2})(?<!N[O0]N)(HOLO)$/i.exec(name) : null;
  const nameRead = gluedHolo ? `${gluedHolo[1]!} ${gluedHolo[2]!}` : name;
  if (gluedHolo) name = gluedHolo[1]!;

  const setLineRest = set;
  // PSA prints the set on the label's third line where the year line holds the brand with only a language or an era
  // (`2006 POKEMON JAPANESE` / `HOLON PHANTOMS - 1ST ED.`, `2019 POKEMON S & M` / `HIDDEN FATES`): `set` was
  // `JAPANESE` on 12 of the 20 PSA slabs here (h279)
  if (company === 'PSA' && nameAt >= 0 && set !== null && LANGUAGE_OR_ERA.test(set.toUpperCase())) {
    const third = text.findIndex((_, i) => i > nameAt && i !== numberAt && nameLikeOrVariety(i));
    const named = third >= 0 ? text[third]!.replace(EDITION_AT_END, '').replace(/^[-\s.,]+|[-\s.,]+$/g, '') : '';
    if (named && !VARIETY.test(named.toUpperCase()) && !NO_SET_LINE.test(named.toUpperCase())) set = named;
  }
  const lang = LANGUAGES.find(([, re]) => re.test(setLine?.toUpperCase() ?? '') || upper.some((l, i) => i !== yearLine && VARIETY.test(l) && re.test(l)))?.[0] ?? null;
  const varietyText = [nameRead?.toUpperCase() ?? '', ...upper.filter((_, i) => !used.has(i) && i !== numberAt)].join('\n');
  // read with the OCR's glue undone (`1STEDITIONHOLO`, `N0N-HOLO`: slab-label-finish.ts)
  const rarity = RARITIES.find(([, re]) => re.test(partedFinishWords(varietyText)))?.[0] ?? null;
  // the finish after the name (`GYARADOS - HOLO`) or on a variety line (`PROMO - REVERSE FOIL`); not on the grade,
  // certificate or subgrade lines
  const finish = labelFinish(nameRead, upper.filter((_, i) => i !== nameAt && i !== certLine && i !== words?.at && i !== chosen?.at && !subgradeLines.has(i)));
  const searchName = name
    ? name
        .replace(/^(F\.?A\.?|S\.?A\.?R?)\s?\//i, '')
        .replace(/\s?-?\s?(N[O0]N[-\s.]*(HOLO|FOIL)|REV(ERSE)?\.?\s?(FOIL|HOLO)|HOLO|1ST\s?ED(ITION)?\.?)\b/gi, '')
        // FOIL after a dash is the grader's descriptor (`Foil - Foil`); FOIL alone or spaced is a name's (Magic's Foil)
        .replace(/(?<=\S)\s?-\s?FOIL$/i, '')
        .trim() || null
    : null;

  return {
    company,
    companyProb,
    name,
    // from what was read of the set line where its parts were told (OCR glues them: `2019POKEMONS&M`, `20O0P.M.…`,
    // `1993ALPHA` of a brand no list names, h270)
    full_name: name ? [year !== null ? [year, brand, set].filter(Boolean).join(' ') : setLine, cardNo ? `#${cardNo}` : null, name].filter(Boolean).join(' ') : null,
    year,
    card_no: cardNo,
    verbal_grade: words?.printed ?? null,
    grade,
    qualifier,
    subgrades: Object.keys(subgrades).length ? subgrades : null,
    score,
    certificate_number: cert?.cert ?? null,
    brand,
    set,
    setLineRest,
    lang,
    rarity,
    finish,
    searchName,
  };
}
