import { describe, expect, it } from 'vitest';
import { Fields } from './catalog-rows.ts';
import { detectLayout, gradeNumber, type LayoutPrice } from './price-layouts.ts';
import { CatalogFileError } from './record-stream.ts';

const at = { file: 'p.csv', line: 7, index: null, path: null };
const row = (layout: string, header: string[], value: Record<string, string>) => {
  const l = detectLayout(header);
  expect(l?.name).toBe(layout);
  return l!.read(new Fields(Object.fromEntries(header.map((h) => [h, value[h] ?? ''])), at));
};

const PSA = ['date', 'game', 'pokemon_card_id', 'mtgjson_uuid', 'scryfall_id', 'source_card_slug', 'catalog_note', 'grade', 'qualifier', 'price_usd', 'auction_house', 'sale_type', 'psa_cert', 'lot_url'];
const THREE_DAY = ['pokemon_card_id', 'tcgplayer_product_id', 'product_type', 'name', 'set_code_source', 'window_start', 'window_end', 'market_price_usd', 'volume', 'scraped_at', 'year_corrected', 'duplicates_dropped'];
const SNAPSHOT = ['date', 'pokemon_card_id_candidates', 'tcgplayer_product_id', 'source_card_id', 'card_name', 'set_name', 'printing', 'market_price_usd', 'low_price_usd', 'median_price_usd', 'source_last_updated'];
const TIX = ['date', 'card_key', 'name', 'set_code', 'scryfall_id', 'mtgjson_uuid', 'price_tix'];
const GOLDFISH = ['date', 'name', 'set_code', 'scryfall_id', 'mtgjson_uuid', 'price_usd'];
const PLAIN = ['card', 'date', 'price', 'currency', 'grade', 'company', 'source'];

describe('price layouts', () => {
  it('are told apart by their header alone, whatever the column order; others are none', () => {
    expect(detectLayout(PSA)?.name).toBe('psa');
    expect(detectLayout([...THREE_DAY].reverse())?.name).toBe('tcgplayer-3day');
    expect(detectLayout(SNAPSHOT)?.name).toBe('tcgplayer-snapshot');
    expect(detectLayout(TIX)?.name).toBe('mtgo-tix');
    // PSA's header has every goldfish column too: the more specific layout wins.
    expect(detectLayout(GOLDFISH)?.name).toBe('mtggoldfish');
    expect(detectLayout(['date', 'card', 'price'])).toBeNull();
    expect(detectLayout(['card', 'date', 'price', 'currency'])?.name).toBe('csv');
    expect(detectLayout([...PLAIN].reverse())?.name).toBe('csv');
    // a column the plain CSV does not have (a typo of "grade", a note) is no layout, not a column ignored
    expect(detectLayout(['card', 'date', 'price', 'currency', 'grde'])).toBeNull();
  });

  it('reads a PSA sale as a graded USD price with grade and qualifier as printed, keyed by its lot', () => {
    const r = row('psa', PSA, { date: '2019-02-10', game: 'pokemon', pokemon_card_id: 'base1-4', grade: '9.0', qualifier: '(MK)', price_usd: '300.5', sale_type: 'Best Offer', psa_cert: '123', lot_url: 'https://x/lot/2' }) as LayoutPrice;
    expect(r).toMatchObject({ kind: 'price', game: 'pokemon', ref: { pokemonId: 'base1-4' }, rowKey: 'https://x/lot/2', date: '2019-02-10', price: 300.5, currency: 'USD', graded: true, grade: '9.0', qualifier: '(MK)', volume: null });
    expect(r.extra).toEqual({ sale_type: 'Best Offer', psa_cert: '123', lot_url: 'https://x/lot/2', company: 'PSA', grade_value: 9 });
    const mtg = row('psa', PSA, { date: '2017-01-05', game: 'mtg', mtgjson_uuid: 'u-1', scryfall_id: 's-1', grade: 'Authentic', price_usd: '3000.0', lot_url: 'https://x/lot/9' });
    expect(mtg).toMatchObject({ game: 'mtg', ref: { mtgjsonUuid: 'u-1', scryfallId: 's-1' }, grade: 'Authentic', qualifier: null, price: 3000 });
    // "Authentic" has no number: the company is known, the grade's number is not
    expect((mtg as LayoutPrice).extra).toMatchObject({ company: 'PSA' });
    expect((mtg as LayoutPrice).extra).not.toHaveProperty('grade_value');
  });

  it('keeps MTGO tix in their own currency', () => {
    expect(row('mtgo-tix', TIX, { date: '2020-05-14', scryfall_id: 's', mtgjson_uuid: 'u', price_tix: '0.05' })).toMatchObject({ currency: 'TIX', price: 0.05, graded: false, rowKey: '2020-05-14:u' });
    expect(row('mtggoldfish', GOLDFISH, { date: '2010-11-02', scryfall_id: 's', price_usd: '12.14' })).toMatchObject({ currency: 'USD', ref: { scryfallId: 's' }, rowKey: '2010-11-02:s' });
  });

  it('dates a 3-day window by its end, keeps its sales volume, and skips sealed products', () => {
    expect(row('tcgplayer-3day', THREE_DAY, { pokemon_card_id: 'sv3pt5-199', tcgplayer_product_id: '5', window_start: '2025-04-26', window_end: '2025-04-28', market_price_usd: '266.22', volume: '4' })).toMatchObject({
      date: '2025-04-28',
      volume: 4,
      rowKey: '5:2025-04-26',
      extra: { window_start: '2025-04-26', tcgplayer_product_id: '5' },
    });
    expect(row('tcgplayer-3day', THREE_DAY, { tcgplayer_product_id: '5', window_start: '2025-04-26', window_end: '2025-04-28', market_price_usd: '266.22', volume: '4' })).toEqual({ kind: 'skip', reason: 'no_card_id' });
  });

  it('takes a snapshot only when it names one candidate card', () => {
    const base = { date: '2026-04-12', tcgplayer_product_id: '7', printing: 'Holofoil', market_price_usd: '1.08', low_price_usd: '0.7' };
    expect(row('tcgplayer-snapshot', SNAPSHOT, { ...base, pokemon_card_id_candidates: 'sv8pt5-142' })).toMatchObject({ ref: { pokemonId: 'sv8pt5-142' }, price: 1.08, extra: { low_price_usd: 0.7, printing: 'Holofoil' } });
    expect(row('tcgplayer-snapshot', SNAPSHOT, { ...base, pokemon_card_id_candidates: 'sv8pt5-142|sv8pt5-170' })).toEqual({ kind: 'skip', reason: 'ambiguous' });
    expect(row('tcgplayer-snapshot', SNAPSHOT, { ...base, pokemon_card_id_candidates: '' })).toEqual({ kind: 'skip', reason: 'no_card_id' });
    expect(row('tcgplayer-snapshot', SNAPSHOT, { ...base, pokemon_card_id_candidates: 'a', market_price_usd: '' })).toEqual({ kind: 'skip', reason: 'no_price' });
  });

  it('takes a price of 0 for none (a gap in the source, no sale at 0)', () => {
    expect(row('tcgplayer-snapshot', SNAPSHOT, { date: '2026-04-12', tcgplayer_product_id: '7', printing: 'Holofoil', pokemon_card_id_candidates: 'a', market_price_usd: '0.0', low_price_usd: '0' })).toEqual({ kind: 'skip', reason: 'no_price' });
    expect(row('tcgplayer-3day', THREE_DAY, { pokemon_card_id: 'swsh12-186', tcgplayer_product_id: '5', window_start: '2025-04-26', window_end: '2025-04-28', market_price_usd: '0.0', volume: '1' })).toEqual({ kind: 'skip', reason: 'no_price' });
    expect(row('csv', PLAIN, { card: 'base1-4', date: '2024-01-31', price: '0', currency: 'USD' })).toEqual({ kind: 'skip', reason: 'no_price' });
    expect(row('csv', PLAIN, { card: 'base1-4', date: '2024-01-31', price: '0.01', currency: 'USD' })).toMatchObject({ kind: 'price', price: 0.01 });
  });

  it('reads a plain CSV row: the card as written, currency in upper case, the company as a grading company, graded when it has a grade or a company', () => {
    expect(row('csv', PLAIN, { card: 'base1-4', date: '2024/01/31', price: '12.5', currency: 'usd' })).toEqual({
      kind: 'price',
      game: null,
      ref: { cardKey: 'base1-4' },
      rowKey: '2024-01-31|USD|||',
      date: '2024-01-31',
      price: 12.5,
      currency: 'USD',
      graded: false,
      grade: null,
      qualifier: null,
      volume: null,
      extra: {},
    });
    expect(row('csv', PLAIN, { card: 'base1-4', date: '2024-01-31', price: '450', currency: 'EUR', grade: 'MINT 9 (oc)', company: 'psa', source: 'ebay' })).toMatchObject({
      rowKey: '2024-01-31|EUR|PSA|MINT 9 (oc)|ebay',
      source: 'ebay',
      currency: 'EUR',
      graded: true,
      grade: 'MINT 9 (oc)',
      qualifier: '(OC)',
      extra: { company: 'PSA', grade_value: 9 },
    });
    expect(row('csv', PLAIN, { card: 'x', date: '2024-01-31', price: '3', currency: 'USD', company: 'CGC' })).toMatchObject({ graded: true, grade: null, extra: { company: 'CGC' } });
  });

  it('names a plain CSV row\'s company as a label read names it: Beckett and BVG are BGS, a grader outside the seven is OTHER', () => {
    const company = (name: string) => (row('csv', PLAIN, { card: 'x', date: '2024-01-31', price: '3', currency: 'USD', grade: '9.5', company: name }) as LayoutPrice).extra.company;
    expect(company('Beckett')).toBe('BGS');
    expect(company('BVG')).toBe('BGS');
    expect(company('bgs')).toBe('BGS');
    expect(company('Beckett Grading Services')).toBe('BGS');
    expect(company('psa')).toBe('PSA');
    expect(company('TAG Grading')).toBe('TAG');
    expect(company('Ace')).toBe('ACE');
    expect(company('KSA')).toBe('OTHER');
    // full-width, as a Japanese spreadsheet types it (it was OTHER)
    expect(company('ＰＳＡ')).toBe('PSA');
    expect(company('ｐｓａ')).toBe('PSA');
    expect(company('my uncle')).toBe('OTHER');
    // the row's key keeps the company as written, so a file imported before is still the same rows
    expect(row('csv', PLAIN, { card: 'x', date: '2024-01-31', price: '3', currency: 'USD', company: 'Beckett' })).toMatchObject({ rowKey: '2024-01-31|USD|BECKETT||', graded: true, extra: { company: 'BGS' } });
  });

  it("takes a plain CSV row's company from its grade when the company column is empty (PSA 10, PSA10, BGS 9.5), never another grader's", () => {
    const read = (grade: string) => row('csv', PLAIN, { card: 'x', date: '2024-01-31', price: '3', currency: 'USD', grade }) as LayoutPrice;
    expect(read('PSA 10')).toMatchObject({ graded: true, grade: 'PSA 10', rowKey: '2024-01-31|USD||PSA 10|', extra: { company: 'PSA', grade_value: 10 } });
    expect(read('PSA10').extra).toEqual({ company: 'PSA', grade_value: 10 });
    expect(read('Beckett 9.5').extra).toEqual({ company: 'BGS', grade_value: 9.5 });
    expect(read('GEM MT 10').extra).toEqual({ grade_value: 10 });
    expect(read('KSA 10').extra).toEqual({ grade_value: 10 });
  });

  it('refuses a plain CSV row without a price, currency or card, naming the line', () => {
    const bad = (value: Record<string, string>) => () => row('csv', PLAIN, { card: 'x', date: '2024-01-31', price: '3', currency: 'USD', ...value });
    expect(bad({ price: '' })).toThrow(/^p\.csv line 7: "price" is missing$/);
    expect(bad({ price: '$3' })).toThrow(/"price" must be a price like 12\.50, not "\$3"/);
    // a certificate number pasted into the price column was every statistic of the card (h122); 10^9 is the sessions' cap
    expect(bad({ price: '999999999999' })).toThrow(/^p\.csv line 7: "price" is over 1,000,000,000, more than any card sells for: "999999999999"/);
    expect(bad({ price: '1000000000' })).not.toThrow();
    expect(bad({ currency: '$' })).toThrow(/^p\.csv line 7: "currency" must be a three-letter code such as USD or EUR, not "\$"$/);
    expect(bad({ currency: '' })).toThrow(/"currency" is missing/);
    expect(bad({ card: '' })).toThrow(/"card" is missing/);
    expect(bad({ date: '2023-02-29' })).toThrow(/^p\.csv line 7: "date" is not a day of the calendar: "2023-02-29"$/);
    // year 0000: 1 BC to JavaScript, no year to PostgreSQL, whose own error it was there (h198)
    expect(bad({ date: '0000-06-01' })).toThrow(/^p\.csv line 7: "date" is not a day of the calendar: "0000-06-01"$/);
    // a typo for 2024 would become the card's anchor and push its real prices out of 30d and 365d
    expect(bad({ date: '2204-01-21' })).toThrow(/^p\.csv line 7: "date" is in the future: "2204-01-21"$/);
    // and its mirror: 0224 for 2024, or a spreadsheet's day 0, was a sale stored 1,800 years back (h339)
    expect(bad({ date: '0224-01-05' })).toThrow(/^p\.csv line 7: "date" is before 1900-01-01, earlier than any card sale a price file records: "0224-01-05" \(a typo/);
    expect(bad({ date: '1899-12-30' })).toThrow(/is before 1900-01-01/);
    expect(bad({ date: '0001-01-01' })).toThrow(/is before 1900-01-01/);
    expect(bad({ date: '1900-01-01' })).not.toThrow();
    expect(bad({ date: '1900/01/02' })).not.toThrow();
    // tomorrow in UTC is already today east of it (UTC+14); the day after is not yet anywhere
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    expect(bad({ date: day(0) })).not.toThrow();
    expect(bad({ date: day(1) })).not.toThrow();
    expect(bad({ date: day(2) })).toThrow(/is in the future/);
  });

  it('reads a grade\'s number only where the label prints one', () => {
    expect(gradeNumber('10.0')).toEqual({ value: 10, qualifier: null });
    expect(gradeNumber('GEM MT 10')).toEqual({ value: 10, qualifier: null });
    expect(gradeNumber('BGS 9.5')).toEqual({ value: 9.5, qualifier: null });
    expect(gradeNumber('8 (MK)')).toEqual({ value: 8, qualifier: '(MK)' });
    for (const none of ['Authentic', 'BLACK LABEL', '11', '9 10', null]) expect(gradeNumber(none), String(none)).toEqual({ value: null, qualifier: null });
  });

  it('reads a grade whose number comes before its words, and a bare qualifier after it', () => {
    expect(gradeNumber('10 Pristine')).toEqual({ value: 10, qualifier: null });
    expect(gradeNumber('9.8 NM/M')).toEqual({ value: 9.8, qualifier: null });
    expect(gradeNumber('PSA 10 GEM MINT')).toEqual({ value: 10, qualifier: null });
    expect(gradeNumber('BGS 8.5 NM-MT+')).toEqual({ value: 8.5, qualifier: null });
    expect(gradeNumber('GEM MT 10 OC')).toEqual({ value: 10, qualifier: '(OC)' });
    // as sheets write them: the grader touching the number, full-width digits and letters
    expect(gradeNumber('PSA9')).toEqual({ value: 9, qualifier: null });
    expect(gradeNumber('bgs9.5')).toEqual({ value: 9.5, qualifier: null });
    expect(gradeNumber('PSA-10')).toEqual({ value: 10, qualifier: null });
    expect(gradeNumber('BGS-9.5')).toEqual({ value: 9.5, qualifier: null });
    for (const none of ['x10', 'Grade10', 'Lot10']) expect(gradeNumber(none), none).toEqual({ value: null, qualifier: null });
    expect(gradeNumber('１０')).toEqual({ value: 10, qualifier: null });
    expect(gradeNumber('ＧＥＭ ＭＴ １０')).toEqual({ value: 10, qualifier: null });
    expect(gradeNumber('MINT 9 (oc)')).toEqual({ value: 9, qualifier: '(OC)' });
    expect(gradeNumber('PSA 8 NM-MT mk')).toEqual({ value: 8, qualifier: '(MK)' });
    // still one number or none: two numbers, a number past 10, a qualifier alone
    for (const none of ['9 10 OC', '10 GEM 9', '12 Pristine', 'OC', 'GEM MTOC']) expect(gradeNumber(none), none).toEqual({ value: null, qualifier: null });
  });

  it('names the line and column of a price or date that is not one', () => {
    const bad = (value: Record<string, string>) => {
      try {
        row('mtggoldfish', GOLDFISH, { date: '2010-11-02', scryfall_id: 's', price_usd: '1', ...value });
      } catch (err) {
        expect(err).toBeInstanceOf(CatalogFileError);
        return (err as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(bad({ price_usd: '12,50' })).toBe('p.csv line 7: "price_usd" must be a price like 12.50, not "12,50"');
    expect(bad({ price_usd: '-3' })).toMatch(/"price_usd" must be a price/);
    expect(bad({ date: '02/11/2010' })).toMatch(/p\.csv line 7: "date" must be a date YYYY-MM-DD/);
    expect(bad({ date: '' })).toBe('p.csv line 7: "date" is missing');
    expect(() => row('psa', PSA, { date: '2019-01-01', game: 'yugioh', price_usd: '1', lot_url: 'x' })).toThrow(/"game" must be pokemon or mtg, not "yugioh"/);
  });
});
