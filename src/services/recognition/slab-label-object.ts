import type { CardResult } from '../../vision/engine/vision-tasks.ts';
import { languageName } from './language-names.ts';
import { normalizeName, numberKey, type CardTextClues } from './card-text.ts';
import { certificateLink } from './slab-label-grades.ts';
import type { LabelReading } from './slab-label-text.ts';

/** A grading label as the card task reads it (slab-label.ts). */
export type ReadLabel = NonNullable<CardResult['label']>;

/** The catalog card a label names, in its catalog kind's match shape, with the match distance. */
export interface LabelMatch {
  fields: Record<string, unknown> & { subcategory: string | null };
  distance: number;
}

type Tag = { id: number; name: string; prob: number; 'pre-filled'?: true };

/**
 * What a label says as identification clues (identify.ts): its card number as a lone collector
 * number (`#SV69`; `#006/T` is 006 of T), its name without the label's variety marks, its year
 * (the set's, as PSA prints it) and the language it names.
 */
export function labelClues(r: LabelReading, fullText: string): CardTextClues {
  const [number, total] = (r.card_no ?? '').split('/');
  // a black star promo's label prints the number without its series prefix (`SWSH BSP #066` is SWSH066); the series
  // may open the set line and the promo words stand on the third (`SM` / `BLACK STAR PROMO`)
  const prefix = number && /^\d+$/.test(number) && !total ? promoPrefix(r.setLineRest !== null && r.setLineRest !== r.set ? `${r.setLineRest} ${r.set ?? ''}` : r.set, r.lang) : null;
  return {
    numbers: number
      ? [
          ...(prefix ? [{ number: `${prefix}${number}`, total: null, key: numberKey(`${prefix}${number}`), raw: `#${r.card_no}`, prob: 1, form: 'promo' as const }] : []),
          { number, total: total ?? null, key: numberKey(number), raw: `#${r.card_no}`, prob: 1, form: 'lone' as const },
        ]
      : [],
    printCodes: [],
    setCodes: [],
    year: r.year,
    regulationMark: null,
    hp: null,
    resistance: null,
    kind: null,
    artist: null,
    names: r.searchName ? [{ text: r.searchName, norm: normalizeName(r.searchName), prob: 1, score: 1 }, ...beckettCodesOff(r)] : [],
    language: r.lang,
    // the brand opening the set line names the game (`POKEMON`, `MAGIC`, `YU-GI-OH!`)
    game: /pok[eé]mon/i.test(r.brand ?? '') ? 'pokemon' : /magic|mtg/i.test(r.brand ?? '') ? 'mtg' : /yu-?gi-?oh/i.test(r.brand ?? '') ? 'yugioh' : null,
    fullText,
  };
}

/**
 * Beckett prints a Magic card's rarity and colour letters after its name (`COUNTERSPELL U B`: uncommon, blue;
 * ../shared/catalogs/slabs/README.md), which the OCR reads apart or glued (`COUNTERSPELLUB`): the name without them is
 * a second name to search by (s73 noticed: the label named no catalog card, `card: null`). A second name only: which
 * letters are codes cannot be told from the text alone, and the name as read stays first.
 */
function beckettCodesOff(r: LabelReading): CardTextClues['names'] {
  if (r.company !== 'BGS' || !r.searchName) return [];
  const m = /^(.{4,}?[A-Z])\s?[CURMSL]\s?[WUBRGMAL]?$/i.exec(r.searchName.trim());
  if (!m) return [];
  const text = m[1]!.trim();
  return [{ text, norm: normalizeName(text), prob: 0.9, score: 0.9 }];
}

/** Black star promo series as grading labels open their set line with them (spaces dropped), and the prefix their cards' numbers carry. */
const PROMO_SERIES: [RegExp, string][] = [
  [/^(SWSH|SW&SH|SWORD&?SHIELD)/, 'SWSH'],
  [/^(SM|S&M|SUN&?MOON)/, 'SM'],
  [/^XY/, 'XY'],
  [/^(BW|B&W|BLACK&WHITE)/, 'BW'],
  [/^(HGSS|HG&?SS|HEARTGOLD)/, 'HGSS'],
  [/^(DP|D&P|DIAMOND&?PEARL)/, 'DP'],
];

/**
 * The number prefix of the English promo series a label's set line names (`SWSH BSP`, `SM BLACK STAR
 * PROMO`, read glued or spaced), or null; a label naming another language is not one of them.
 */
export function promoPrefix(set: string | null, lang: string | null = null): string | null {
  const s = (set ?? '').toUpperCase().replace(/[^A-Z&]/g, '');
  if ((lang !== null && lang !== 'en') || !/(BSP|BLACKSTAR|PROMO)/.test(s)) return null;
  return PROMO_SERIES.find(([re]) => re.test(s))?.[1] ?? null;
}

/** The record tags a label gives (document 3 §2 names them): `Company`, `Grade`, and PSA's `Qualifier` when printed. */
export function slabTags(r: LabelReading): Record<string, Tag[]> {
  const grade = r.grade !== null ? String(r.grade) : r.verbal_grade;
  return {
    Company: [{ id: 1, name: r.company, prob: r.companyProb }],
    ...(grade ? { Grade: [{ id: 1, name: grade, prob: 1 }] } : {}),
    ...(r.qualifier ? { Qualifier: [{ id: 1, name: r.qualifier, prob: 1 }] } : {}),
  };
}

/**
 * The `Slab Label` object of `/slab_id` (docs/api-decisions.md "Slab labels"): the label's box and
 * text, its tags, and `best_match` in the slab-label fields of document 3 §2 (`name`, `brand`,
 * `verbal_grade`, `grade`, `year`, `card_no`, `certificate_number`, `lang`, `set`, `rarity`,
 * `links`) plus `company`, `qualifier`, `subgrades`, `score` (TAG), `full_name` and `card`, the
 * catalog card the label names when one matched. `simple` (`/slab_grade`): the company and grade
 * only, no text. `more`: tags the record's answer adds (`Foil/Holo` on `/slab_id`; where the label is the answer, that and the record's hints).
 */
export function slabLabelObject(id: number, label: ReadLabel, r: LabelReading, size: { width: number; height: number }, match: LabelMatch | null, simple: boolean, more: Record<string, Tag[]> = {}): Record<string, unknown> {
  const tags: Record<string, Tag[]> = { ...slabTags(r), ...(match?.fields.subcategory ? { Category: [{ id: 1, name: match.fields.subcategory, prob: 1 }] } : {}), ...more };
  const [x0, y0, x1, y1] = label.box;
  const object = {
    name: 'Slab Label',
    id,
    bound_box: label.box,
    prob: 1,
    area: Number((((x1 - x0) * (y1 - y0)) / (size.width * size.height)).toFixed(4)),
    'Top Category': [{ id: 1, name: 'Slab Label', prob: 1 }],
    _tags: tags,
    _tags_simple: Object.values(tags).flatMap((t) => t.map((x) => x.name)),
  };
  if (simple) {
    return { ...object, _identification: { best_match: { company: r.company, grade: r.grade, verbal_grade: r.verbal_grade, qualifier: r.qualifier }, alternatives: [], distances: [] } };
  }
  const card = match?.fields;
  const catalogLinks = card && typeof card.links === 'object' && card.links ? (card.links as Record<string, string>) : {};
  return {
    ...object,
    _ocr: { full_text: label.lines.map((l) => l.text).join('\n'), lang: r.lang, lang_name: languageName(r.lang), texts: label.lines.map((l) => ({ polygon: l.polygon, text: l.text, prob: Number(l.prob.toFixed(3)) })) },
    _identification: {
      best_match: {
        name: r.name,
        full_name: r.full_name,
        brand: r.brand,
        set: r.set,
        year: r.year,
        card_no: r.card_no,
        lang: r.lang,
        rarity: r.rarity ?? (typeof card?.rarity === 'string' ? card.rarity : null),
        company: r.company,
        verbal_grade: r.verbal_grade,
        grade: r.grade,
        qualifier: r.qualifier,
        // all four named, null where one was not read (a client reading `subgrades.corners` gets null, not undefined)
        subgrades: r.subgrades && { centering: null, corners: null, edges: null, surface: null, ...r.subgrades },
        ...(r.company === 'TAG' ? { score: r.score } : {}),
        certificate_number: r.certificate_number,
        links: { ...catalogLinks, ...certificateLink(r.company, r.certificate_number) },
        card: card ?? null,
      },
      alternatives: [],
      distances: match ? [match.distance] : [],
    },
  };
}
