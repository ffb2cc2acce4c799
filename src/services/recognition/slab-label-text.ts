/**
 * What a grading label says, from its OCR lines (src/vision/cards/slab-label.ts reads them): year,
 * card number, name, the grade in words and as a number, and the certificate number. PSA prints
 * "YEAR GAME SET", "#NUM", "NAME", the grade words, the variety, the grade, "PSA" and the
 * certificate; BGS the year and set, the name, the subgrades and the overall grade. The words
 * and certificate formats come from ../shared/catalogs/slabs, not from the photos read.
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

const VERBAL = /\b(GEM\s?-?\s?MT|GEM\s?MINT|PRISTINE|BLACK\s?LABEL|NM\s?-?\s?MT\+?|NM|NEAR\s?MINT\+?|MINT\+?|EX\s?-?\s?MT|EX|VG\s?-?\s?EX|VG|GOOD|FAIR|PR|AUTHENTIC)\b/;
/** Words of the label's furniture and grade, never a card's name. */
const FURNITURE = /\b(PSA|BGS|BECKETT|CGC|SGC|CENTERING|CORNERS|EDGES|SURFACE|GRADE|GRADING|PROMO|HOLO|1ST\s?ED|EDITION|REVERSE\s?FOIL)\b/;
const digitsOf = (s: string) => s.replace(/[Oo]/g, '0').replace(/[Il|]/g, '1');

export function readLabelText(lines: readonly string[]): LabelFields {
  const out: LabelFields = { name: null, full_name: null, year: null, card_no: null, verbal_grade: null, grade: null, certificate_number: null };
  const text = lines.map((l) => l.trim()).filter(Boolean);
  let numberAt = -1;
  text.forEach((line, i) => {
    const upper = line.toUpperCase();
    if (out.year === null) {
      const y = /^([12][0-9Oo]{3})/.exec(line);
      const year = y ? digitsOf(y[1]!) : null;
      if (year && Number(year) >= 1950 && Number(year) <= 2049) out.year = year;
    }
    const no = /^#\s?([A-Z0-9-]{1,10})$/i.exec(line);
    if (no && out.card_no === null) {
      out.card_no = no[1]!;
      numberAt = i;
    }
    const cert = /^(\d{7,10})$/.exec(line.replace(/\s/g, ''));
    if (cert && out.certificate_number === null) out.certificate_number = cert[1]!;
    const verbal = VERBAL.exec(upper);
    if (verbal && out.verbal_grade === null && upper.replace(/[^A-Z]/g, '').length <= 12) out.verbal_grade = verbal[1]!.replace(/\s+/g, ' ');
    const grade = /^(10|[1-9](?:\.5)?)$/.exec(line);
    if (grade && out.grade === null) out.grade = Number(grade[1]);
  });
  // The name: the line after the card number on PSA labels, else the first line of letters that
  // is neither the year line, grade words nor label furniture.
  const isName = (l: string) => /[A-Za-z]{3}/.test(l) && !/^[12][0-9Oo]{3}/.test(l) && !FURNITURE.test(l.toUpperCase()) && !(VERBAL.test(l.toUpperCase()) && l.replace(/[^A-Za-z]/g, '').length <= 12);
  const gradeWordsOnly = (l: string) => { const m = VERBAL.exec(l.toUpperCase()); return m !== null && m[0].replace(/\s/g, '').length >= l.replace(/\s/g, '').length - 1; };
  // on PSA labels the name follows the number, whatever it holds (`RAYQUAZA EX-HOLO`)
  const yearLine = (l: string) => /^[12][0-9Oo]{3}/.test(l);
  const after = numberAt >= 0 ? text.slice(numberAt + 1).find((l) => /[A-Za-z]{3}/.test(l) && !yearLine(l) && !gradeWordsOnly(l) && !/^(PSA|BGS|CGC|SGC|BECKETT)$/i.test(l)) : undefined;
  out.name = after ?? text.find(isName) ?? null;
  const setLine = text.find(yearLine);
  if (out.name) out.full_name = [setLine, out.card_no ? `#${out.card_no}` : null, out.name].filter(Boolean).join(' ');
  return out;
}
