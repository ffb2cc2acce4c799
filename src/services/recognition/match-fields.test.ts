import { describe, expect, it } from 'vitest';
import type { StoredCard } from '../../store/catalog-store.ts';
import { sportCardMatch, tradingCardMatch, withoutNonAscii } from './match-fields.ts';

const card = (fields: Record<string, unknown>): StoredCard => ({
  key: 'TFC|42|Elsa - Spirit of Winter',
  name: 'Elsa - Spirit of Winter',
  nameNorm: 'elsaspiritofwinter',
  setCode: 'TFC',
  setName: 'The First Chapter',
  number: '42',
  numberNorm: '42',
  rarity: 'Legendary',
  year: '2023',
  fields,
  links: {},
  aliases: [],
  flags: [],
  source: 'csv',
  createdAt: '',
  updatedAt: '',
});

describe('a match of a shop’s own game (--kind csv)', () => {
  it('carries the colour, type and set size its --map named, and none it did not', () => {
    expect(tradingCardMatch('csv', 'lorcana', card({ color: 'Amethyst', type: 'Floodborn', out_of: '204' }), undefined)).toMatchObject({ color: 'Amethyst', type: 'Floodborn', out_of: 204, subcategory: 'lorcana', card_number: '42' });
    expect(tradingCardMatch('csv', 'lorcana', card({ Ink: 'Amethyst', out_of: 'many' }), undefined)).toMatchObject({ color: null, type: null, out_of: null });
  });
});

describe('ignore_non_ascii', () => {
  it('drops CJK text from lists too: a sport card\'s teams and attributes (h147)', () => {
    expect(withoutNonAscii({ name: '大谷翔平', teams: ['読売ジャイアンツ', 'Giants'], attributes: ['ルーキーカード'], year: '2022' })).toEqual({ name: null, teams: ['Giants'], attributes: [], year: '2022' });
  });

  it("keeps the match's shape, and its id and catalog whatever they hold (h237: the card's id went with its name)", () => {
    expect(withoutNonAscii({ id: 's8b|117/184|ザシアンV', name: 'ザシアンV', full_name: 'ザシアンV 117/184', set_code: 's8b', catalog: 'ポケカ' })).toEqual({ id: 's8b|117/184|ザシアンV', name: null, full_name: null, set_code: 's8b', catalog: 'ポケカ' });
  });
});

describe('a checklist card', () => {
  it('gives its season as the checklist wrote it, and its year where the checklist wrote only that (h224)', () => {
    expect(sportCardMatch('topps', { ...card({ year: '2003-04' }), year: '2003', setName: '2003-04 Topps Chrome' })).toMatchObject({ year: '2003-04', full_name: '2003-04 Topps Chrome #42 Elsa - Spirit of Winter' });
    expect(sportCardMatch('topps', card({})).year).toBe('2023');
    // a parallel's full name names it; a base card's does not (h224: one full name for both)
    expect([sportCardMatch('topps', card({ sub_set: 'Red /99' })).full_name, sportCardMatch('topps', card({ sub_set: 'base' })).full_name]).toEqual(['2023 The First Chapter #42 Elsa - Spirit of Winter – Red /99', '2023 The First Chapter #42 Elsa - Spirit of Winter']);
    // a year the checklist said was unknown is no year
    expect(sportCardMatch('topps', { ...card({ year: 'n/a' }), year: null }).year).toBeNull();
  });
});

describe('a Pokémon match names the card as it prints its number (h270)', () => {
  const set = (code: string, name: string, printedTotal: number) => ({ code, name, series: 'Sword & Shield', printedTotal, total: printedTotal, releaseDate: '2020-01-01', extra: {}, source: 'pokemon' });
  const pokemon = (number: string, rarity: string | null, setCode: string) => ({ ...card({ supertype: 'Pokémon' }), name: 'Dubwool V', number, rarity, setCode });
  it('a promo its number alone, a lettered subset its letters on the total too, any other card number/total', () => {
    const promo = tradingCardMatch('pokemon', 'pokemon', pokemon('SWSH049', 'Promo', 'swshp'), set('swshp', 'SWSH Black Star Promos', 307));
    expect([promo.full_name, promo.out_of]).toEqual(['Dubwool V SWSH049 SWSH Black Star Promos', null]);
    const vault = tradingCardMatch('pokemon', 'pokemon', pokemon('SV69', 'Shiny Holo Rare', 'sma'), set('sma', 'Hidden Fates Shiny Vault', 94));
    expect([vault.full_name, vault.out_of]).toEqual(['Dubwool V SV69/SV94 Hidden Fates Shiny Vault', 94]);
    const plain = tradingCardMatch('pokemon', 'pokemon', pokemon('153', 'Rare Holo V', 'swsh1'), set('swsh1', 'Sword & Shield', 202));
    expect([plain.full_name, plain.out_of]).toEqual(['Dubwool V 153/202 Sword & Shield', 202]);
  });
});
