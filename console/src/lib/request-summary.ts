import type { MatchObject, PriceStatsEntry } from '../types.ts';
import { priceBoxes } from './price-chart.ts';
import { moneyIn, num } from './format.ts';

/** A result record of an asynchronous request, as far as the lists read it (spec 3 §2). */
type Rec = Record<string, unknown>;

const failed = (r: Rec) => ((r._status as { code?: number } | undefined)?.code ?? 200) >= 300;

/** A grade's words: a number "of 10", a label as it is. */
const gradeText = (v: unknown) => (typeof v === 'number' ? `${num(v, 1)} of 10` : typeof v === 'string' ? v : undefined);

/** What one graded record says in a word: its final grade, else its centering, else its condition label. */
function gradeOf(r: Rec): string | undefined {
  const grades = (r.grades ?? {}) as Record<string, unknown>;
  if (grades.final !== undefined && grades.final !== null) return `grade ${gradeText(grades.final)}`;
  if (typeof grades.centering === 'number') return `centering ${gradeText(grades.centering)}`;
  const condition = (r._objects as { Condition?: { label?: string }[] }[] | undefined)?.[0]?.Condition?.[0]?.label;
  return condition ? condition : undefined;
}

/**
 * How a finished grading request went, after its state: "Done" alone read as a card graded when its only photo could
 * not be (the request is DONE, its record failed: "The card is 84 px across…", h342). The grade where one record was
 * graded (or the front and back's overall grade), else how many were and were not.
 */
export function gradingOutcome(records: readonly Rec[], overall?: Record<string, unknown> | null): string {
  const n = records.length;
  const bad = records.filter(failed).length;
  if (!n) return 'no result';
  if (bad === n) return `${bad} of ${n} not graded`;
  const good = records.filter((r) => !failed(r));
  // front and back graded together give one grade over both (spec 3: 70 % front, 30 % back)
  if (overall && overall.final !== undefined && overall.final !== null) return [`grade ${gradeText(overall.final)}`, bad ? `${bad} of ${n} not graded` : ''].filter(Boolean).join(', ');
  const one = good.length === 1 ? gradeOf(good[0]!) : undefined;
  if (n === 1) return one ?? 'graded';
  return `${good.length} of ${n} graded${one ? ` (${one})` : ''}${bad ? `, ${bad} not graded` : ''}`;
}

/**
 * A small picture of a graded card, where the result has one: the straightened card first (the whole photo with the
 * grades drawn over it is the largest), none for a photo that could not be graded (the API keeps no copy of the photo
 * sent once its request is done).
 */
export function gradingPicture(records: readonly Rec[]): string | undefined {
  for (const key of ['_img_url', '_clean_url_card', '_exact_url_card', '_full_url_card']) {
    for (const r of records) if (!failed(r) && typeof r[key] === 'string') return r[key] as string;
  }
  return undefined;
}

/** The objects a recognition record names as its cards: a slab's label only where it was identified on its own. */
export const recognisedObjects = (r: Rec): MatchObject[] => ((r._objects ?? []) as MatchObject[]).filter((o) => o.name !== 'Slab Label' || o._identification);

/** A best match's price in one figure: the median of its first price statistic that has one (spec 3 §2 gives no price field). */
export function matchPrice(best: Record<string, unknown> | null | undefined): string | undefined {
  const box = priceBoxes(best?.price_stats as PriceStatsEntry[] | undefined)[0];
  return box ? moneyIn(box.median, box.currency) : undefined;
}

/**
 * How a finished recognition request went, in a line: the cards it named (the first three), then what was not named
 * and what could not be read. "Lairon · 1 not identified".
 */
export function recognitionOutcome(records: readonly Rec[]): string {
  if (!records.length) return 'no result';
  const names: string[] = [];
  let unnamed = 0;
  let bad = 0;
  for (const r of records) {
    if (failed(r)) {
      bad++;
      continue;
    }
    const objects = recognisedObjects(r);
    if (!objects.length) unnamed++;
    for (const o of objects) {
      const best = o._identification?.best_match;
      if (best) names.push(String(best.name || best.full_name || best.title || 'a card'));
      else unnamed++;
    }
  }
  const shown = names.length > 3 ? [...names.slice(0, 3), `${names.length - 3} more`] : names;
  return [shown.join(', '), unnamed ? `${unnamed} not identified` : '', bad ? `${bad} of ${records.length} not read` : ''].filter(Boolean).join(' · ');
}

/**
 * A request's webhook on its line of a list, where it needs a look: `failed` (the receiver missed it for good; the API's
 * `POST …/webhook` or `loupe webhook resend` sends it again) and `pending` (being delivered or retried). A delivered
 * webhook, one waiting for its request to finish and a request without one say nothing: the line stays short.
 */
export function webhookNote(state: string | null | undefined): string | undefined {
  if (state === 'failed') return 'webhook failed';
  if (state === 'pending') return 'webhook pending';
  return undefined;
}
