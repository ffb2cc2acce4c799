import type { Identification } from '../types.ts';

/** Text folded for matching as a person types it: case, accents and ligatures ignored (`flabebe` finds Flabébé). */
export function folded(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').replace(/œ/g, 'oe').replace(/æ/g, 'ae').toLowerCase();
}

/** The rows a filter typed over a session's grid keeps: its words in the card's names, set, number, note, event id, or `sold` / `edited` / `check`. */
export function filterRows(rows: readonly Identification[], typed: string): Identification[] {
  const words = folded(typed).split(/\s+/).filter(Boolean);
  if (!words.length) return [...rows];
  return rows.filter((r) => {
    const text = folded(
      [r.name, r.full_name, r.set_name, r.set_code, r.card_number, r.event_id, r.note, r.sold ? 'sold' : '', r.corrected ? 'edited' : '', !r.corrected && r.confidence === 'low' ? 'check' : ''].filter(Boolean).join(' '),
    );
    return words.every((w) => text.includes(w));
  });
}
