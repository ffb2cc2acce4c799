import type { Identification } from '../types.ts';

// as the server's session search folds them (h156): the Latin letters no decomposition takes apart, and a phone's curly
// apostrophes and dashes
const strokes: Readonly<Record<string, string>> = { ß: 'ss', ł: 'l', ı: 'i', ø: 'o', đ: 'd', ħ: 'h', ŧ: 't', œ: 'oe', æ: 'ae', '’': "'", '‘': "'", ʼ: "'", '‛': "'", '‐': '-', '‑': '-', '‒': '-', '–': '-', '−': '-' };
const stroked = new RegExp(`[${Object.keys(strokes).join('')}]`, 'g');

/** Text folded for matching as a person types it: case, accents and ligatures ignored (`flabebe` finds Flabébé, `strasse` Straße). */
export function folded(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(stroked, (c) => strokes[c]!);
}

/** The words that find a card by its state, not its text. */
const flags = ['sold', 'edited', 'check'] as const;

/**
 * The rows a filter typed over a session's grid keeps: its words in the card's names, set, number, note or event id;
 * `sold`, `edited` and `check` find the cards in that state only, not a note saying "not sold" (h157).
 */
export function filterRows(rows: readonly Identification[], typed: string): Identification[] {
  const words = folded(typed).split(/\s+/).filter(Boolean);
  if (!words.length) return [...rows];
  return rows.filter((r) => {
    const state = { sold: r.sold === true, edited: r.corrected === true, check: !r.corrected && r.confidence === 'low' };
    const text = folded([r.name, r.full_name, r.set_name, r.set_code, r.card_number, r.event_id, r.note].filter(Boolean).join(' '));
    return words.every((w) => ((flags as readonly string[]).includes(w) ? state[w as (typeof flags)[number]] : text.includes(w)));
  });
}
