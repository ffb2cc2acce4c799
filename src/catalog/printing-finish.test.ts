import { describe, expect, it } from 'vitest';
import { printingFinish, sharedFinish } from './printing-finish.ts';

const card = (rarity: string | null, fields: Record<string, unknown> = {}) => ({ rarity, fields });

describe('printingFinish', () => {
  it('reads Magic finishes: one kind only is said, both are not', () => {
    expect(printingFinish('mtg', card('rare', { finishes: ['foil'] }))).toBe('Foil');
    expect(printingFinish('mtg', card('rare', { finishes: ['foil', 'etched'] }))).toBe('Foil');
    expect(printingFinish('mtg', card('common', { finishes: ['nonfoil'] }))).toBe('Non-Foil');
    expect(printingFinish('mtg', card('common', { finishes: ['nonfoil', 'signed'] }))).toBe('Non-Foil');
    expect(printingFinish('mtg', card('rare', { finishes: ['nonfoil', 'foil'] }))).toBeNull();
    expect(printingFinish('mtg', card('rare'))).toBeNull();
    expect(printingFinish('mtg', card('rare', { finishes: 'foil' }))).toBeNull();
  });

  it('reads Pokémon rarities whose every copy is foil, and says nothing of those printed both ways', () => {
    expect(printingFinish('pokemon', card('Rare Holo'))).toBe('Foil');
    expect(printingFinish('pokemon', card('Special Illustration Rare'))).toBe('Foil');
    expect(printingFinish('pokemon', card('rare holo vmax'))).toBe('Foil');
    // the shared file's rarities the list lacked until the sixty-sixth session, as the data spells them
    for (const r of ['Classic Collection', 'Black White Rare', 'MEGA_ATTACK_RARE', 'Mega Attack Rare']) expect(printingFinish('pokemon', card(r)), r).toBe('Foil');
    // a common, an uncommon or a rare may be its reverse holo; a promo either; a Black & White ACE SPEC is not known foil-only
    for (const r of ['Common', 'Uncommon', 'Rare', 'Promo', 'Rare ACE', null]) expect(printingFinish('pokemon', card(r))).toBeNull();
  });

  it('reads Yu-Gi-Oh! rarities', () => {
    expect(printingFinish('yugioh', card('Secret Rare'))).toBe('Foil');
    expect(printingFinish('yugioh', card('Duel Terminal Normal Parallel Rare'))).toBe('Foil');
    expect(printingFinish('yugioh', card("Collector's Rare"))).toBe('Foil');
    expect(printingFinish('yugioh', card('Common'))).toBe('Non-Foil');
    expect(printingFinish('yugioh', card('Short Print'))).toBe('Non-Foil');
    expect(printingFinish('yugioh', card('Rare'))).toBeNull();
  });

  it('says nothing for catalogs that carry no finish', () => {
    expect(printingFinish('sports', card(null))).toBeNull();
    expect(printingFinish('csv', card('Holo Rare'))).toBeNull();
    expect(printingFinish('comics', card(null))).toBeNull();
  });

  it('says a finish of tied printings only where they all share it (BP01-EN056 is a Common and a Starfoil Rare)', () => {
    expect(sharedFinish('yugioh', [card('Common'), card('Starfoil Rare')])).toBeNull();
    expect(sharedFinish('yugioh', [card('Rare'), card("Collector's Rare")])).toBeNull();
    expect(sharedFinish('yugioh', [card('Ultra Rare'), card('Secret Rare')])).toBe('Foil');
    expect(sharedFinish('pokemon', [card('Illustration Rare'), card('Common')])).toBeNull();
    expect(sharedFinish('pokemon', [card('Rare Holo')])).toBe('Foil');
  });
});
