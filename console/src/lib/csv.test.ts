import { describe, expect, it } from 'vitest';
import { csvField, csvFileName, sessionCsv } from './csv.ts';

describe('session CSV', () => {
  it('quotes commas, quotes and line breaks, and keeps numbers as numbers', () => {
    expect(csvField('Charizard, holo')).toBe('"Charizard, holo"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(12.5)).toBe('12.5');
    expect(csvField(-3)).toBe('-3');
    expect(csvField(null)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-1+1')).toBe("'-1+1");
    expect(csvField('-2+3+cmd|\' /C calc\'!A0')).toMatch(/^'-2/);
    // a plain negative number runs nothing: a comic's issue #-1 stays -1 (h136)
    expect(csvField('-1')).toBe('-1');
    expect(csvField('-0.5')).toBe('-0.5');
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
  });

  it('writes a header, one line per row, a BOM and CRLF', () => {
    const csv = sessionCsv([{ id: '1', event_id: 'e1', name: 'Pikachu', price: 3, grading: { grades: { condition: 'Near Mint' } } }], 'UTC');
    expect(csv.startsWith('\uFEFFevent_id,seen (UTC),name,')).toBe(true);
    const lines = csv.slice(1).split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('e1,,Pikachu,,,,,,,3,,Near Mint,,,false,false,,,');
  });

  it("writes a card number or event id a spreadsheet would change as text it shows as written (h157)", () => {
    const csv = sessionCsv(
      [
        { id: '1', event_id: '1796171460123', name: 'Pikachu', card_number: '025' },
        { id: '2', event_id: 'e2', name: 'Mew', card_number: '4/102' },
        { id: '3', event_id: '42', name: 'Eevee', card_number: 'SWSH001' },
        { id: '4', event_id: '7', name: 'Ditto', card_number: '132' },
      ],
      'UTC',
    );
    const cells = csv.slice(1).split('\r\n').slice(1, 5).map((l) => [l.split(',')[0], l.split(',')[6]]);
    expect(cells).toEqual([
      ['"=""1796171460123"""', '"=""025"""'],
      ['e2', '"=""4/102"""'],
      ['42', 'SWSH001'],
      ['7', '132'],
    ]);
  });

  it("writes a season, a set code and a parallel a spreadsheet would change as text too, the parallel in its own column (h224)", () => {
    const csv = sessionCsv([{ id: '1', event_id: 'e1', name: 'LeBron James', set_code: '1-10', year: '2003-04', series: 'Red /99' }, { id: '2', event_id: 'e2', name: 'Pikachu', year: '2021', series: '2-12' }], 'UTC');
    const header = csv.slice(1).split('\r\n')[0]!.split(',');
    const rows = csv.slice(1).split('\r\n').slice(1, 3).map((l) => l.split(','));
    const at = (name: string) => header.indexOf(name);
    expect(rows.map((r) => [r[at('set_code')], r[at('year')], r[at('series')]])).toEqual([
      ['"=""1-10"""', '"=""2003-04"""', 'Red /99'],
      ['', '2021', '"=""2-12"""'],
    ]);
  });

  it('says no in the yes/no columns, and writes the time seen as a spreadsheet reads a date', () => {
    const csv = sessionCsv([{ id: '1', event_id: 'e1', name: 'Pikachu', seen: '2026-12-01T01:12:07.000000Z', sold: true, corrected: false }], 'UTC');
    const [line] = csv.slice(1).split('\r\n').slice(1);
    expect(line).toBe('e1,2026-12-01 01:12:07,Pikachu,,,,,,,,,,,,false,true,,,');
  });

  it("writes the time seen in the page's time zone, named in its header: a Tokyo morning's sale is on its own day (h121)", () => {
    const rows = [
      { id: '1', event_id: 'tokyo', seen: '2026-12-01T23:00:00.000000Z' },
      { id: '2', event_id: 'la', seen: '2026-12-01T04:00:00.000000Z' },
    ];
    const tokyo = sessionCsv(rows, 'Asia/Tokyo').slice(1).split('\r\n');
    expect(tokyo[0]!.split(',')[1]).toBe('seen (Asia/Tokyo)');
    expect(tokyo[1]!.split(',')[1]).toBe('2026-12-02 08:00:00');
    const la = sessionCsv(rows, 'America/Los_Angeles').slice(1).split('\r\n');
    expect(la[2]!.split(',')[1]).toBe('2026-11-30 20:00:00');
    // across a change of clocks: 2026-03-08 10:30 UTC is 03:30 in Los Angeles, after the spring change
    expect(sessionCsv([{ id: '3', event_id: 'dst', seen: '2026-03-08T10:30:00.000000Z' }], 'America/Los_Angeles').slice(1).split('\r\n')[1]!.split(',')[1]).toBe('2026-03-08 03:30:00');
  });

  it('keeps the image column named image whatever its links (a file read by its headers; the console says until when they work)', () => {
    const rows = [{ id: '1', event_id: 'e1', image: '/media/a?expires=1795600800&sig=ab' }];
    expect(sessionCsv(rows, 'Asia/Tokyo').slice(1).split('\r\n')[0]!.split(',')[17]).toBe('image');
  });

  it('makes a safe file name', () => {
    expect(csvFileName('Friday stream: Pokémon!', '0123456789ab')).toBe('Friday-stream-Pokemon-01234567.csv');
    expect(csvFileName('///', 'abcdefgh12')).toBe('session-abcdefgh.csv');
    // any script's letters stay (they were dropped: "session-…" for every Japanese name)
    expect(csvFileName('土曜配信 #12 ガチャ', '0123456789ab')).toBe('土曜配信-12-ガチャ-01234567.csv');
    expect(csvFileName('포켓몬 방송', '0123456789ab')).toBe('포켓몬-방송-01234567.csv');
    // vowel and tone marks stay with their letters (ขายการ-ดม-อ…, h117)
    expect(csvFileName('ขายการ์ดมือสอง', '0123456789ab')).toBe('ขายการ์ดมือสอง-01234567.csv');
    expect(csvFileName('हिंदी कार्ड', '0123456789ab')).toBe('हिंदी-कार्ड-01234567.csv');
    expect(csvFileName('😀'.repeat(3) + 'ア'.repeat(70), '0123456789ab')).toBe(`${'ア'.repeat(60)}-01234567.csv`);
  });
});
