import { describe, expect, it } from 'vitest';
import { coverDateYear, readCardText, type CardTextLine } from './card-text.ts';
import { ART_NONE, artScore, bestMatch, comboLikeness, identify, identifyAcross, englishNameLines, logoStem, MIN_SCORE, NAME_PRINTINGS, NAME_READ, nameLikeness, printedSetYear, printingMatch, scoreCandidate, SUFFIX_UNREAD, SURE_PRINT_CARD, totalFits, WEIGHTS, type ArtEvidence, type CandidateCard, type CandidateSource } from './identify.ts';
import { normalizeName } from '../../catalog/card-keys.ts';
import { COMICS, SPORT, withSeriesTitledByNumber } from './recognition-families.ts';
import { withLabelClues } from './recognition-service.ts';

const card = (key: string, name: string, number: string, setTotal: number | null, year: string | null, extra: Partial<CandidateCard> = {}): CandidateCard => ({
  key,
  name,
  nameNorm: normalizeName(name),
  number,
  numberNorm: number.replace(/^([A-Z]*)0*(\d)/, '$1$2'),
  setCode: key.split('-')[0]!,
  setCodes: [key.split('-')[0]!.toUpperCase()],
  setTotal,
  year,
  hp: null,
  regulationMark: null,
  kind: null,
  artist: null,
  border: null,
  layout: null,
  resistance: null,
  ...extra,
});
/** Lines as [text, top, left, height] on the upright card. */
const lines = (rows: [string, number, number, number][]): CardTextLine[] => rows.map(([text, y, x, h]) => ({ text, prob: 0.95, box: { x0: x, y0: y, x1: x + 0.3, y1: y + h } }));
/** Lines of a bottom band (and a name on top) as the OCR returns them. */
const read = (rows: [string, number][]): ReturnType<typeof readCardText> => readCardText(rows.map(([text, y]): CardTextLine => ({ text, prob: 0.9, box: { x0: 0.05, y0: y, x1: 0.4, y1: y + 0.03 } })));

// Two sets of 159 cards: Crown Zenith (2023, ©2022) and Journey Together (2025).
const zenith105 = card('swsh12pt5-105', 'Radiant Eternatus', '105', 159, '2023', { hp: 170, regulationMark: 'F' });
const journey105 = card('sv9-105', 'Fezandipiti', '105', 159, '2025', { hp: 100, regulationMark: 'I' });
const other105 = card('sv2-105', 'Tinkaton', '105', 193, '2023');
const promo = card('swshp-SWSH131', 'Galarian Moltres V', 'SWSH131', null, null);
const source = (cards: CandidateCard[]): CandidateSource => ({
  byNumber: async (k) => cards.filter((c) => c.numberNorm === k),
  byName: async (t, limit) => cards.filter((c) => nameLikeness(normalizeName(t), c.nameNorm) >= 0.75).slice(0, limit),
  byKeys: async (keys) => cards.filter((c) => keys.includes(c.key)),
});
/** Artwork evidence: the distances of the cards that have a reference. */
const artOf = (distances: Record<string, number>): ArtEvidence => ({
  distance: (k) => distances[k] ?? null,
  nearest: Object.entries(distances).filter(([, d]) => d < ART_NONE).sort((a, b) => a[1] - b[1]).map(([k]) => k),
});

describe('sport cards and comics: the year a card or cover prints', () => {
  // a checklist's set named with its year, and a card of the next year's set the catalog lacks
  const ohtani = card('s1-1', 'Shohei Ohtani', '1', null, '2022', { setName: '2022 Topps Series 1', setCodes: [] });
  const blackGold = card('up-1', 'Shohei Ohtani', '1', null, '2022', { setName: '2022 Topps Update Series', setCodes: [] });
  const back = (year: string) => readCardText(lines([['SHOHEI OHTANI', 0.1, 0.1, 0.05], [`© ${year} THE TOPPS COMPANY, INC. ${year} TOPPS SERIES 1 #1`, 0.9, 0.05, 0.03]]));

  it('reads the set named on a back with its year, or another, whatever the spaces', () => {
    expect(printedSetYear('2022 TOPPS SERIES 1', '2022 Topps Series 1')).toBe('same');
    expect(printedSetYear('x 2023TOPPSSERIES1 #1', '2022 Topps Series 1')).toBe('differs');
    // Series 10 is not Series 1; a set not printed, or named without a year, says nothing
    expect(printedSetYear('2022 TOPPS SERIES 10', '2022 Topps Series 1')).toBe('differs');
    // another set line of the brand: another card; a label's shortened line: the same
    expect(printedSetYear('© 2023 THE TOPPS COMPANY, INC. 2023 TOPPS SERIES 1 #1', '2022 Topps Update Series')).toBe('differs');
    expect(printedSetYear('2022TOPPSUPDATE\n#44\nJULIORODRIGUEZ', '2022 Topps Update Series')).toBe('same');
    // the most specific line decides: a label's short `2022 TOPPS` does not outvote the back's set line
    expect(printedSetYear('2022 TOPPS SERIES 1 #1\n2022 TOPPS', '2022 Topps Update Series')).toBe('differs');
    expect(printedSetYear('2022 TOPPS SERIES 1 #1\n2022 TOPPS UPDATE', '2022 Topps Update Series')).toBe('differs');
    expect(printedSetYear('2022 TOPPS SERIES 1 #1\n2022 TOPPS', '2022 Topps Series 1')).toBe('same');
    // a copyright line names no set
    expect(printedSetYear('© 2023 THE TOPPS COMPANY, INC.', '2022 Topps Series 1')).toBe('unknown');
    expect(printedSetYear('SCARLET & VIOLET 2023', 'Scarlet & Violet')).toBe('unknown');
  });

  it('names the card whose set and year the back prints, and no card of another year', async () => {
    const src = source([ohtani, blackGold]);
    const same = await identify(back('2022'), src, 5, 4, true);
    expect(bestMatch(same)?.card.key).toBe('s1-1');
    expect(same.find((m) => m.card.key === 's1-1')!.evidence.setYear).toBe('same');
    // a 2023 card of the same player and number: not in this catalog, so no best match (the update set's #1 neither)
    const next = await identify(back('2023'), src, 5, 4, true);
    expect(next.find((m) => m.card.key === 's1-1')!.evidence.setYear).toBe('differs');
    expect(bestMatch(next)).toBeNull();
  });

  it("names a leaders' combo card whose players print their names on lines of their own, each of whom has a solo card (h224)", async () => {
    const sport = (key: string, name: string, number: string) => card(key, name, number, null, '2022', { setName: '2022 Topps Series 1', setCodes: [], catalogKind: 'sports' });
    const cards = [sport('s1-48', 'Guerrero Jr. / Perez / Ohtani', '48'), sport('s1-1', 'Shohei Ohtani', '1'), sport('s1-27', 'Vladimir Guerrero Jr.', '27'), sport('s1-200', 'Salvador Perez', '200')];
    const src: CandidateSource = { ...source(cards), byName: async (t, limit) => cards.filter((c) => nameLikeness(normalizeName(t), c.nameNorm) >= 0.5).slice(0, limit) };
    const front = (names: string[]) => {
      const ls = lines([['AL HOME RUN LEADERS', 0.05, 0.1, 0.04], ...names.map((n, i): [string, number, number, number] => [n, 0.8 + 0.05 * i, 0.1, 0.04]), ['#48', 0.95, 0.1, 0.03]]);
      return SPORT.clues!(readCardText(ls), ls);
    };
    const all = await identify(front(['VLADIMIR GUERRERO JR.', 'SALVADOR PEREZ', 'SHOHEI OHTANI']), src, 5, SPORT.nameLines, true);
    expect(bestMatch(all, SPORT.rule)?.card.key).toBe('s1-48');
    // a player of the three not read: the card's name is not read, and no card is named
    const two = await identify(front(['VLADIMIR GUERRERO JR.', 'SALVADOR PEREZ']), src, 5, SPORT.nameLines, true);
    expect(two.find((m) => m.card.key === 's1-48')!.evidence.name).toBeLessThan(0.7);
    expect(bestMatch(two, SPORT.rule)).toBeNull();
    // one printed name is one player's (h230: a solo card's line read both players of a father-and-son card)
    const line = (text: string) => ({ text, norm: normalizeName(text), score: 1 }) as unknown as Parameters<typeof comboLikeness>[1][number];
    expect(comboLikeness('Griffey Jr. / Griffey Sr.', [line('KEN GRIFFEY JR.')])).toBeLessThan(0.6);
    expect(comboLikeness('Martinez / Martinez', [line('PEDRO MARTINEZ')])).toBeLessThan(0.6);
    expect(comboLikeness('Griffey Jr. / Griffey Sr.', [line('KEN GRIFFEY JR.'), line('KEN GRIFFEY SR.')])).toBe(1);
    expect(comboLikeness('Griffey Jr. / Griffey Sr.', [line('KEN GRIFFEY JR. & KEN GRIFFEY SR.')])).toBe(1);
  });

  it('names a slabbed sport card whose front prints no number by its label', async () => {
    const julio = card('up-44', 'Julio Rodriguez', '44', null, '2022', { setName: '2022 Topps Update Series', setCodes: [] });
    const other = card('up-26', 'Julio Rodriguez', '26', null, '2022', { setName: '2022 Topps Update Series', setCodes: [] });
    const front = readCardText(lines([['SEATTLE MARINERS', 0.85, 0.1, 0.04], ['JULIO RODRIGUEZ', 0.9, 0.1, 0.04]]));
    // the front alone: his two cards tie
    const alone = await identify(front, source([julio, other]), 5, 4, true);
    expect(alone[0]!.score).toBe(alone[1]!.score);
    const label = { company: 'PSA', box: [0, 0, 1, 1] as [number, number, number, number], lines: ['2022 TOPPS UPDATE', '#44', 'JULIO RODRIGUEZ', 'MINT', '9', 'PSA', '81234567'].map((text) => ({ text, prob: 0.99, polygon: [] as [number, number][] })) };
    const both = await identify(withLabelClues(front, label), source([julio, other]), 5, 4, true);
    expect(bestMatch(both)?.card.key).toBe('up-44');
    expect(both.find((m) => m.card.key === 'up-44')!.evidence.setYear).toBe('same');
  });

  it('reads a comic cover date as the issue year, in full, as month/year or with an apostrophe', () => {
    const at = (text: string) => coverDateYear(lines([[text, 0.05, 0.05, 0.03]]));
    expect(at('DEC 12/93 MARVEL COMICS')).toBe('1993');
    expect(at('JAN 1/07')).toBe('2007');
    expect(at('DEC 2018')).toBe('2018');
    expect(at("MAY '84")).toBe('1984');
    expect(at('DEC12/93')).toBe('1993');
    expect(at('NOVEMBER 1977')).toBe('1977');
    // a word a month's name starts, a day of the month
    expect(at('MARVEL 2099')).toBeNull();
    expect(at('JUNE 30')).toBeNull();
    expect(at('#323')).toBeNull();
    expect(at('DAREDEVIL')).toBeNull();
  });

  it('takes no date on a comic cover for its issue number (DEC 12/93 on Daredevil #323)', async () => {
    const cover = lines([['DAREDEVIL', 0.05, 0.1, 0.08], ['#323', 0.05, 0.8, 0.03], ['DEC 12/93 MARVEL COMICS', 0.15, 0.05, 0.02]]);
    const read = readCardText(cover);
    expect(read.numbers.map((n) => n.number)).toEqual(expect.arrayContaining(['12', '323']));
    const clues = COMICS.clues!(read, cover);
    expect(clues.numbers.map((n) => n.number)).toEqual(['323']);
    expect(clues.coverYear).toBe('1993');
    const dd323 = card('dd-323', 'Daredevil', '323', null, null, { setCodes: [] });
    const dd12 = card('dd22-12', 'Daredevil', '12', null, '2023', { setCodes: [] });
    expect(bestMatch(await identify(clues, source([dd323, dd12]), 5, 4, true))?.card.key).toBe('dd-323');
  });

  it('reads a title of digits alone (1602, 52) as the series a catalog holds, not its issue, where a price is read beside it (h322)', async () => {
    // the logo set large across the top, the corner box's price small: no `#` issue read
    const cover = (title: string) => lines([['MARVEL', 0.01, 0.01, 0.02], ['$3.50', 0.04, 0.01, 0.02], [title, 0.05, 0.3, 0.12], ['NEIL GAIMAN', 0.9, 0.3, 0.03]]);
    const series = (name: string, issues: string[]) => issues.map((i) => card(`${name}-${i}`, name, i, null, '2003', { setCodes: [] }));
    const catalog = [...series('1602', ['1', '2', '3']), ...series('52', ['1', '2', '52']), ...series('Fantastic Four', ['52']), ...series('Uncanny X-Men', ['300'])];
    const held = async (norm: string) => catalog.some((c) => c.nameNorm === norm);
    const ranked = async (title: string) => {
      const given = COMICS.clues!(readCardText(cover(title)), cover(title));
      // what the comics clues alone make of it: the title as the corner box's issue
      expect(given.numbers.map((n) => n.key)).toEqual([title]);
      const clues = await withSeriesTitledByNumber(given, cover(title), held);
      return { clues, found: await identify(clues, source(catalog), 6, COMICS.nameLines, true) };
    };
    const a = await ranked('1602');
    expect(a.clues.numbers).toEqual([]);
    expect(a.clues.names[0]!.text).toBe('1602');
    expect(new Set(a.found.map((r) => r.card.name))).toEqual(new Set(['1602']));
    // two digits: searched by name all the same; 52's own #52 is one of its issues, no other series' #52 comes in
    const b = await ranked('52');
    expect(b.found.map((r) => r.card.key).sort()).toEqual(['52-1', '52-2', '52-52']);
    expect(bestMatch(b.found, COMICS.rule)).toBeNull();
    // a catalog without that series: the number stays what it was read as
    expect((await withSeriesTitledByNumber(COMICS.clues!(readCardText(cover('1602')), cover('1602')), cover('1602'), async () => false)).numbers.map((n) => n.key)).toEqual(['1602']);
    // a corner box's issue beside a series' logo stays the issue, though a catalog holds a series of that name (Dark
    // Horse's 300): set no larger than the box's price, it is no title
    const box = lines([['MARVEL', 0.01, 0.01, 0.03], ['$3.95', 0.05, 0.01, 0.02], ['300', 0.08, 0.01, 0.03], ['MAY', 0.12, 0.01, 0.02], ['UNCANNY X-MEN', 0.03, 0.25, 0.08]]);
    const boxed = await withSeriesTitledByNumber(COMICS.clues!(readCardText(box), box), box, async (norm) => norm === '300' || (await held(norm)));
    expect(boxed.numbers.map((n) => n.key)).toEqual(['300']);
    // nor is a box read without the logo: its 300 is not set as large as a title
    const bare = lines([['$3.95', 0.05, 0.01, 0.02], ['300', 0.08, 0.01, 0.03], ['MAY', 0.12, 0.01, 0.02]]);
    expect((await withSeriesTitledByNumber(COMICS.clues!(readCardText(bare), bare), bare, async () => true)).numbers.map((n) => n.key)).toEqual(['300']);
  });

  it('keeps a line’s own likeness to a card where the English name it stands for was spotted in it (a Magic Quagmire read right, spotted as Quagsire)', () => {
    const quagmire = card('mtg-1', 'Quagmire', '1', null, null);
    const clues = readCardText(lines([['Quagmire', 0.05, 0.1, 0.05]]));
    const spotted = { ...clues, names: clues.names.map((n) => ({ ...n, english: { text: 'Quagsire', norm: 'quagsire' }, englishSpotted: true as const })) };
    const putIn = { ...clues, names: clues.names.map((n) => ({ ...n, english: { text: 'Quagsire', norm: 'quagsire' } })) };
    expect(scoreCandidate(quagmire, spotted).evidence.name).toBe(1);
    expect(scoreCandidate(quagmire, spotted).score).toBe(scoreCandidate(quagmire, clues).score);
    // a name read in another language and put into English says nothing by its own letters
    expect(scoreCandidate(quagmire, putIn).evidence.name).toBeLessThan(1);
  });

  it('counts a comic issue dated years from the cover against it, and one within a year for it', () => {
    const thor = card('c-13', 'Immortal Thor', '13', null, '2024', { setCodes: [] });
    const clues = (year: string) => ({ ...readCardText(lines([['IMMORTAL THOR', 0.1, 0.1, 0.06], ['#13', 0.1, 0.8, 0.03]])), coverYear: year });
    expect(scoreCandidate(thor, clues('2023')).evidence.coverYear).toBe('same');
    expect(scoreCandidate(thor, clues('2024')).score - scoreCandidate(thor, clues('1993')).score).toBe(WEIGHTS.coverYearSame - WEIGHTS.coverYearDiffers);
  });
});

describe('identification', () => {
  it('needs more than the number: the set total, year, HP or name must agree too', () => {
    const alone = scoreCandidate(other105, read([['105', 0.95]]));
    expect(alone.evidence.number).toBe('same');
    expect(alone.score).toBeLessThan(MIN_SCORE);
    const withTotal = scoreCandidate(other105, read([['105/193', 0.93]]));
    expect(withTotal.evidence.total).toBe('same');
    expect(withTotal.score).toBeGreaterThanOrEqual(MIN_SCORE);
    expect(scoreCandidate(zenith105, read([['105/193', 0.93]])).evidence.total).toBe('differs');
  });

  it('gives no match when two sets share the number and total, and the year tells them apart', async () => {
    const src = source([zenith105, journey105, other105]);
    expect(bestMatch(await identify(read([['105/159', 0.93]]), src))).toBeNull();
    const m = bestMatch(await identify(read([['105/159', 0.93], ['©2022 Pokémon', 0.97]]), src));
    expect(m?.card.key).toBe('swsh12pt5-105');
    expect(m?.evidence.year).toBe('near');
  });

  it('tells sets of the same size apart by the set code printed on the card', async () => {
    const sv1 = card('sv1-45', 'Lechonk', '045', 198, '2023', { setCodes: ['SV1', 'SVI'] });
    const swsh6 = card('swsh6-45', 'Glastrier', '045', 198, '2021', { setCodes: ['SWSH6', 'CRE'] });
    const src = source([sv1, swsh6]);
    expect(bestMatch(await identify(read([['045/198', 0.95]]), src))).toBeNull();
    const m = bestMatch(await identify(read([['GSVIFR 045/198', 0.95]]), src));
    expect(m?.card.key).toBe('sv1-45');
    expect(m?.evidence.setCode).toBe('same');
  });

  it('takes a promo code that only one card has', async () => {
    const src = source([promo, zenith105]);
    const m = bestMatch(await identify(read([['SWSH131', 0.93]]), src));
    expect(m?.card.key).toBe('swshp-SWSH131');
    expect(m?.evidence.uniqueCode).toBe(true);
  });

  it('counts a contradicting HP or regulation mark against a candidate', () => {
    const clues = readCardText([
      { text: 'PV 100', prob: 0.9, box: { x0: 0.6, y0: 0.04, x1: 0.9, y1: 0.08 } },
      { text: 'I 105/159', prob: 0.9, box: { x0: 0.05, y0: 0.93, x1: 0.3, y1: 0.96 } },
    ]);
    const a = scoreCandidate(journey105, clues);
    const b = scoreCandidate(zenith105, clues);
    expect(a.evidence.hp).toBe('same');
    expect(b.evidence.hp).toBe('differs');
    expect(a.score).toBeGreaterThan(b.score);
  });

  it('finds a card by its name where no number was read', async () => {
    const src = source([zenith105, journey105, card('sv3pt5-25', 'Pikachu', '025', 165, '2023', { hp: 60 })]);
    const clues = readCardText([
      { text: 'Pikachu', prob: 0.95, box: { x0: 0.2, y0: 0.04, x1: 0.5, y1: 0.09 } },
      { text: '60', prob: 0.95, box: { x0: 0.7, y0: 0.04, x1: 0.8, y1: 0.09 } },
    ]);
    const m = bestMatch(await identify(clues, src));
    expect(m?.card.key).toBe('sv3pt5-25');
    expect(m?.evidence.name).toBe(1);
  });

  it('identifies a card by its artwork alone when the reference is near and no other is', async () => {
    const pikachu = card('sv3pt5-25', 'Pikachu', '025', 165, '2023');
    const src = source([zenith105, journey105, pikachu]);
    const nothingRead = read([]);
    const m = bestMatch(await identify(nothingRead, src, 5, 2, false, artOf({ 'sv3pt5-25': 8, 'swsh12pt5-105': 75 })));
    expect(m?.card.key).toBe('sv3pt5-25');
    expect(m?.evidence.art).toBe(8);
    // an artwork only somewhat alike is a clue, not an identity
    expect(bestMatch(await identify(nothingRead, src, 5, 2, false, artOf({ 'sv3pt5-25': 40 })))).toBeNull();
  });

  it('tells two printings the text cannot tell apart by their artwork, and counts a different artwork against a candidate', async () => {
    const src = source([zenith105, journey105, other105]);
    const clues = read([['105/159', 0.93]]);
    expect(bestMatch(await identify(clues, src))).toBeNull();
    const m = bestMatch(await identify(clues, src, 5, 2, false, artOf({ 'sv9-105': 12, 'swsh12pt5-105': 110 })));
    expect(m?.card.key).toBe('sv9-105');
    expect(scoreCandidate(zenith105, clues, new Map(), artOf({ 'swsh12pt5-105': 110 })).score).toBe(scoreCandidate(zenith105, clues).score + WEIGHTS.artDiffers);
  });

  // SV151 (printed code MEW, 165 cards, 2023): Dragonair is 148, its alternate-art printing 181.
  const dragonair181 = card('sv3pt5-181', 'Dragonair', '181', 165, '2023', { setCodes: ['SV3PT5', 'MEW'], hp: 90 });
  const dragonair148 = card('sv3pt5-148', 'Dragonair', '148', 165, '2023', { setCodes: ['SV3PT5', 'MEW'], hp: 90 });
  const dragonairRead = (number: string) =>
    readCardText([
      { text: 'Dragonair', prob: 0.97, box: { x0: 0.2, y0: 0.04, x1: 0.5, y1: 0.09 } },
      { text: `MEW EN ${number}/165`, prob: 0.95, box: { x0: 0.05, y0: 0.93, x1: 0.3, y1: 0.96 } },
      { text: '©2023 Pokémon/Nintendo', prob: 0.95, box: { x0: 0.5, y0: 0.95, x1: 0.9, y1: 0.97 } },
    ]);

  it('counts a collector number read that differs from the candidate’s against it: another printing of the name in the set', async () => {
    // the card read (148) is not in the catalog: its alternate art, same name, set and total, is not it
    const alt = scoreCandidate(dragonair181, dragonairRead('148'));
    expect(alt.evidence.number).toBe('differs');
    expect(bestMatch(await identify(dragonairRead('148'), source([dragonair181])))).toBeNull();
    expect(bestMatch(await identify(dragonairRead('148'), source([dragonair181, dragonair148])))?.card.key).toBe('sv3pt5-148');
  });

  it('holds a single misread digit little against a candidate, and another prefix nothing', async () => {
    // 148 read as 146: the name, set code and year still find it
    expect(scoreCandidate(dragonair148, dragonairRead('146')).evidence.number).toBe('near');
    expect(bestMatch(await identify(dragonairRead('146'), source([dragonair148])))?.card.key).toBe('sv3pt5-148');
    // a set prefix lost (TG05 read as 05/30) is the same number
    expect(scoreCandidate(card('swsh11tg-TG05', 'Kricketune V', 'TG05', 30, '2022'), read([['05/30', 0.95]])).evidence.number).toBe('none');
  });

  // Expedition (2002, 165 cards) numbers Haunter 80; Slowbro 080/165 of SV151 shares number and total.
  const haunter = card('ecard1-80', 'Haunter', '80', 165, '2002', { hp: 60 });
  const foot = (lang: 'en' | 'fr'): CardTextLine[] =>
    (lang === 'en' ? ['weakness', 'resistance', 'retreat'] : ['faiblesse', 'résistance', 'retraite']).map((w, i) => ({ text: w, prob: 0.9, box: { x0: 0.05 + i * 0.3, y0: 0.87, x1: 0.3 + i * 0.3, y1: 0.89 } }));
  const named = (name: string, lang: 'en' | 'fr') =>
    readCardText([{ text: name, prob: 0.96, box: { x0: 0.2, y0: 0.04, x1: 0.5, y1: 0.09 } }, ...foot(lang), { text: '080/165', prob: 0.95, box: { x0: 0.05, y0: 0.93, x1: 0.3, y1: 0.96 } }]);

  it('counts an English name read plainly against a candidate of another name', async () => {
    const clues = named('Slowbro', 'en');
    expect(clues.language).toBe('en');
    const s = scoreCandidate(haunter, clues);
    expect(s.evidence.nameDiffers).toBe(true);
    expect(bestMatch(await identify(clues, source([haunter])))).toBeNull();
    // the right name does not differ
    expect(bestMatch(await identify(named('Haunter', 'en'), source([haunter])))?.card.key).toBe('ecard1-80');
  });

  it('holds no French name against a candidate (the catalogs are English), nor a short or small name line', () => {
    const fr = named('Flagadoss', 'fr');
    expect(fr.language).toBe('fr');
    expect(scoreCandidate(haunter, fr).evidence.nameDiffers).toBe(false);
    expect(scoreCandidate(haunter, named('Mew', 'en')).evidence.nameDiffers).toBe(false);
    const small = readCardText([{ text: 'Slowbro', prob: 0.96, box: { x0: 0.2, y0: 0.5, x1: 0.5, y1: 0.52 } }, ...foot('en'), { text: '080/165', prob: 0.95, box: { x0: 0.05, y0: 0.93, x1: 0.3, y1: 0.96 } }]);
    expect(scoreCandidate(haunter, small).evidence.nameDiffers).toBe(false);
  });

  it('reads a French species name put into English (the service adds it) as that name: for the candidate, and against one of another name', async () => {
    const slowbro = card('ecard1-80x', 'Slowbro', '80', 165, '2002', { hp: 60 });
    const given = named('Flagadoss', 'fr');
    const fr = { ...given, names: given.names.map((n) => (n.norm === 'flagadoss' ? { ...n, english: { text: 'Slowbro', norm: 'slowbro' } } : n)) };
    expect(scoreCandidate(slowbro, fr).evidence.name).toBe(1);
    expect(scoreCandidate(haunter, fr).evidence.nameDiffers).toBe(true);
    // found by its English name alone: no number read
    const bare = readCardText([{ text: 'Flagadoss', prob: 0.96, box: { x0: 0.2, y0: 0.04, x1: 0.5, y1: 0.09 } }, ...foot('fr')]);
    const translated = { ...bare, names: bare.names.map((n) => ({ ...n, english: { text: 'Slowbro', norm: 'slowbro' } })) };
    expect((await identify(translated, source([haunter, slowbro])))[0]?.card.name).toBe('Slowbro');
    expect(await identify(bare, source([haunter, slowbro]))).toEqual([]);
  });

  it('takes a name line that is a candidate’s name, of any catalog searched, for English, and no power/toughness for a collector number', async () => {
    // no furniture word read: the language is unknown, but `Seel` is the name of a card of the catalogs
    const seel = card('base1-41', 'Seel', '41', 102, '1999');
    const magmar = card('ecard1-86', 'Magmar', '86', 165, '2002');
    const clues = readCardText([
      { text: 'Seel', prob: 0.97, box: { x0: 0.2, y0: 0.04, x1: 0.4, y1: 0.09 } },
      { text: '086/165', prob: 0.95, box: { x0: 0.05, y0: 0.93, x1: 0.3, y1: 0.96 } },
    ]);
    expect(clues.language).toBeNull();
    expect(bestMatch(await identify(clues, source([magmar])))?.card.key).toBe('ecard1-86');
    const across = await identifyAcross(clues, [{ source: source([magmar]), tag: 'pokemon' }, { source: source([seel]), tag: 'other' }]);
    expect(across.find((m) => m.card.key === 'ecard1-86')?.evidence.nameDiffers).toBe(true);
    expect(bestMatch(across)).toBeNull();
    // `4/5` in an MTG card's corner is no collector number to hold against it
    expect(scoreCandidate(card('dom-123', 'Baloth Gorger', '123', 269, '2018'), read([['4/5', 0.95]])).evidence.number).toBe('none');
  });

  it('folds one printing held by two catalogs into one candidate naming both (h252: a catalog imported twice tied every card, no best match)', async () => {
    const magmar = card('ecard1-86', 'Magmar', '86', 165, '2002');
    const magby = card('ecard1-87', 'Magby', '87', 165, '2002');
    const clues = read([['Magmar', 0.97], ['086/165', 0.95]]);
    const once = await identify(clues, source([magmar, magby]));
    const twice = await identifyAcross(clues, [{ source: source([magmar, magby]), tag: 'pokemon' }, { source: source([{ ...magmar }, { ...magby }]), tag: 'pokemon-again' }]);
    expect(twice.map((m) => [m.card.key, m.tag, m.alsoIn])).toEqual(once.map((m) => [m.card.key, 'pokemon', ['pokemon-again']]));
    expect(bestMatch(twice)?.card.key).toBe('ecard1-86');
    // rows of one catalog alike (a Yu-Gi-Oh! printing's rarities) stay its own
    const rare = { ...magmar, key: 'ecard1-86-rare' };
    expect((await identifyAcross(clues, [{ source: source([magmar, rare]), tag: 'one' }])).map((m) => m.card.key).sort()).toEqual(['ecard1-86', 'ecard1-86-rare']);
  });

  it('tells a trainer from a Pokémon of the same number and total, and a printing by its illustrator', async () => {
    // Astral Radiance and Darkness Ablaze both print 189 cards: 141 is Feather Ball in one, Skitty in the other
    const featherBall = card('swsh10-141', 'Feather Ball', '141', 189, '2022', { kind: 'trainer' });
    const skitty = card('swsh3-141', 'Skitty', '141', 189, '2020', { kind: 'pokemon', hp: 60 });
    const clues = readCardText(lines([['DRESSEUR', 0.03, 0.1, 0.03], ['Objet', 0.07, 0.1, 0.02], ['PlumeBall', 0.06, 0.3, 0.05], ['141/189', 0.93, 0.05, 0.02]]));
    expect(scoreCandidate(skitty, clues).evidence.kind).toBe('differs');
    expect(bestMatch(await identify(clues, source([featherBall, skitty])))?.card.key).toBe('swsh10-141');
    // two Oricorio printings of the same HP: the credit read short tells them apart
    const gg = card('swsh12pt5gg-GG04', 'Oricorio', 'GG04', null, '2023', { hp: 90, artist: normalizeName('Tomokazu Komiya') });
    const plain = card('swsh8-42', 'Oricorio', '042', 264, '2021', { hp: 90, artist: normalizeName('Kagemaru Himeno') });
    const oricorio = readCardText(lines([['Oricorio', 0.05, 0.2, 0.05], ['90', 0.05, 0.75, 0.04], ['lys.TomokozuKon', 0.9, 0.05, 0.02]]));
    expect(scoreCandidate(gg, oricorio).evidence.artist).toBe('same');
    expect(scoreCandidate(plain, oricorio).evidence.artist).toBe('differs');
    expect(bestMatch(await identify(oricorio, source([gg, plain])))?.card.key).toBe('swsh12pt5gg-GG04');
  });

  it('names the card where only its name can be told: the newest printing of those tied, never across two names', async () => {
    // a French Khélocrok with HP 80, put into English: three Chewtle printings at 80 HP
    const chewtles = [card('swsh4-38', 'Chewtle', '038', 185, '2020', { hp: 80 }), card('sv7-43', 'Chewtle', '043', 142, '2024', { hp: 80 }), card('swsh1-60', 'Chewtle', '060', 202, '2020', { hp: 80 })];
    const given = readCardText(lines([['Khelocrok', 0.05, 0.2, 0.05], ['80', 0.05, 0.75, 0.04]]));
    const clues = { ...given, names: given.names.map((n) => ({ ...n, english: { text: 'Chewtle', norm: 'chewtle' } })) };
    const ranked = await identify(clues, source(chewtles));
    expect(ranked.map((r) => r.card.key)).toEqual(['sv7-43', 'swsh1-60', 'swsh4-38']);
    expect(printingMatch(ranked)).toBeNull();
    expect(bestMatch(ranked)?.card.key).toBe('sv7-43');
    // another name tied with them: no match
    const drednaw = card('swsh1-61', 'Chewtle', '061', 202, '2020', { hp: 80 });
    expect(bestMatch(await identify(clues, source([...chewtles, { ...drednaw, name: 'Chewtla', nameNorm: 'chewtla' }])))).toBeNull();
    // a name read unsurely, or a printing contradicted by the number read, is no name-level match
    const unsure = { ...clues, names: clues.names.map((n) => ({ ...n, english: undefined, norm: 'chewtlx', text: 'Chewtlx' })) };
    expect(bestMatch(await identify(unsure, source(chewtles)))).toBeNull();
    const numbered = readCardText(lines([['Chewtle', 0.05, 0.2, 0.05], ['80', 0.05, 0.75, 0.04], ['099/185', 0.93, 0.05, 0.02]]));
    expect(bestMatch(await identify(numbered, source([chewtles[0]!])))).toBeNull();
    // the newest whose own scan shows other art (h279): the next tied printing without a scan; every one with a far
    // scan, the newest as before
    expect(bestMatch(await identify(clues, source(chewtles), 5, 2, false, artOf({ 'sv7-43': 75 })))?.card.key).toBe('swsh1-60');
    expect(bestMatch(await identify(clues, source(chewtles), 5, 2, false, artOf({ 'sv7-43': 75, 'swsh1-60': 80, 'swsh4-38': 70 })))?.card.key).toBe('sv7-43');
    // a scan at no distance that tells (under ART_NONE) scores, and leads
    expect(bestMatch(await identify(clues, source(chewtles), 5, 2, false, artOf({ 'swsh4-38': 15 })))?.card.key).toBe('swsh4-38');
  });

  it('tells a name’s printings apart by the border’s colour, never one name from another', async () => {
    // a Tyranitar V read by name and HP alone: the regular card's border is dark, the old one's yellow
    const v = card('swsh5-97', 'Tyranitar V', '097', 163, '2021', { hp: 230, border: 'neutral' });
    const old = card('xy1-10', 'Tyranitar V', '010', 146, '2014', { hp: 230, border: 'yellow' });
    const unknown = card('swsh5-155', 'Tyranitar V', '155', 163, '2021', { hp: 230, border: null });
    const given = readCardText(lines([['Tyranitar V', 0.05, 0.2, 0.05], ['230', 0.05, 0.75, 0.04]]));
    // measured yellow: the yellow printing leads the unknown one, which leads the dark one, each by the border's weight
    const yellow = await identify({ ...given, border: 'yellow' }, source([v, old, unknown]));
    expect(yellow.map((r) => [r.card.key, r.evidence.border])).toEqual([['xy1-10', 'same'], ['swsh5-155', 'unknown'], ['swsh5-97', 'differs']]);
    expect(yellow[0]!.score - yellow[2]!.score).toBeCloseTo(WEIGHTS.borderSame - WEIGHTS.borderDiffers, 9);
    // unmeasured: no evidence, the newest first as before
    const none = await identify({ ...given, border: null }, source([v, old, unknown]));
    expect(none.every((r) => r.evidence.border === 'unknown')).toBe(true);
    expect(none[0]!.score).toBe(none[2]!.score);
    // another name, read plainly, is not made up by the border
    const other = card('swsh5-98', 'Tyrunt', '098', 163, '2021', { hp: 230, border: 'yellow' });
    const ranked = await identify({ ...given, border: 'yellow' }, source([v, other]));
    expect(ranked[0]!.card.key).toBe('swsh5-97');
  });

  it('tells a regular printing from its illustration rare by the text box, where the layout contradicts one', async () => {
    // Scarlet & Violet: one name, one HP, both silver; on a small photo the number is unreadable
    const regular = card('sv8-153', 'Braviary', '153', 191, '2024', { hp: 130, border: 'neutral', layout: 'framed' });
    const rare = card('sv8-214', 'Braviary', '214', 191, '2024', { hp: 130, border: 'neutral', layout: 'full' });
    const given = readCardText(lines([['Braviary', 0.05, 0.2, 0.05], ['130', 0.05, 0.75, 0.04]]));
    const full = await identify({ ...given, border: 'neutral', layout: 'full' }, source([regular, rare]));
    expect(full.map((r) => [r.card.key, r.evidence.layout])).toEqual([['sv8-214', 'same'], ['sv8-153', 'differs']]);
    expect(full[0]!.score - full[1]!.score).toBeCloseTo(WEIGHTS.layoutSame - WEIGHTS.layoutDiffers, 9);
    // it orders the two, the best match at the name level, but does not single a printing out
    expect(bestMatch(full)?.card.key).toBe('sv8-214');
    expect(printingMatch(full)).toBeNull();
    const framed = await identify({ ...given, border: 'neutral', layout: 'framed' }, source([regular, rare]));
    expect(bestMatch(framed)?.card.key).toBe('sv8-153');
    // a printing whose layout the catalog does not tell (a regular ex card) does not lose to a full art measured full
    const ex = card('sv8-4', 'Durant ex', '4', 191, '2024', { hp: 190, border: 'neutral', layout: null });
    const sir = card('sv8-236', 'Durant ex', '236', 191, '2024', { hp: 190, border: 'neutral', layout: 'full' });
    const exRead = readCardText(lines([['Durant ex', 0.05, 0.2, 0.05], ['190', 0.05, 0.75, 0.04]]));
    const both = await identify({ ...exRead, border: 'neutral', layout: 'full' }, source([ex, sir]));
    expect(both[0]!.score).toBe(both[1]!.score);
    // unmeasured: a tie, and no printing is named
    const none = await identify({ ...given, border: 'neutral', layout: null }, source([regular, rare]));
    expect(none.every((r) => r.evidence.layout === 'unknown')).toBe(true);
    expect(none[0]!.score).toBe(none[1]!.score);
    expect(printingMatch(none)).toBeNull();
  });

  it('orders a name’s printings of two eras by the resistance read, without singling one out', async () => {
    // a Sword & Shield Magnemite and an XY one: both yellow-bordered, same HP; the XY card prints -20
    const xy = card('xy8-52', 'Magnemite', '52', 162, '2015', { hp: 60, border: 'yellow', resistance: 20 });
    const swsh = card('swsh4-60', 'Magnemite', '60', 185, '2020', { hp: 60, border: 'yellow', resistance: 30 });
    const older = card('bw5-45', 'Magnemite', '45', 108, '2012', { hp: 60, border: 'yellow', resistance: 20 });
    const given = readCardText(lines([['Magneti', 0.05, 0.2, 0.05], ['Magnemite', 0.05, 0.2, 0.05], ['60', 0.05, 0.75, 0.04], ['-20', 0.88, 0.45, 0.02]]));
    expect(given.resistance).toBe(20);
    const ranked = await identify({ ...given, border: 'yellow' }, source([swsh, xy]));
    expect(ranked.map((r) => [r.card.key, r.evidence.resistance])).toEqual([['xy8-52', 'same'], ['swsh4-60', 'differs']]);
    expect(ranked[0]!.score - ranked[1]!.score).toBeCloseTo(WEIGHTS.resistanceSame - WEIGHTS.resistanceDiffers, 9);
    expect(bestMatch(ranked)?.card.key).toBe('xy8-52');
    expect(printingMatch(ranked)).toBeNull();
    // two printings of one era stay tied; unread, nothing counts
    const era = await identify({ ...given, border: 'yellow' }, source([xy, older]));
    expect(era[0]!.score).toBe(era[1]!.score);
    const unread = await identify({ ...given, resistance: null, border: 'yellow' }, source([swsh, xy]));
    expect(unread[0]!.score).toBe(unread[1]!.score);
  });

  it('tells a Magic name’s white-bordered reprint from its black-bordered printings by the ring’s lightness', async () => {
    // an old card shows no collector number: name and border are what a photo gives
    const beta = card('beta-bolt', 'Lightning Bolt', '161', null, '1993', { border: 'black' });
    const revised = card('revised-bolt', 'Lightning Bolt', '162', null, '1994', { border: 'white' });
    const given = readCardText(lines([['Lightning Bolt', 0.05, 0.08, 0.05]]));
    const white = await identify({ ...given, border: 'neutral', borderTone: 'light' }, source([beta, revised]));
    expect(white.map((r) => [r.card.key, r.evidence.border])).toEqual([['revised-bolt', 'same'], ['beta-bolt', 'differs']]);
    expect(bestMatch(white)?.card.key).toBe('revised-bolt');
    const black = await identify({ ...given, border: 'neutral', borderTone: 'dark' }, source([beta, revised]));
    expect(bestMatch(black)?.card.key).toBe('beta-bolt');
    // a grey ring (neither) says nothing; a Pokémon colour clue never counts for a Magic printing
    const grey = await identify({ ...given, border: 'neutral', borderTone: null }, source([beta, revised]));
    expect(grey.every((r) => r.evidence.border === 'unknown')).toBe(true);
    const yellow = await identify({ ...given, border: 'yellow', borderTone: null }, source([beta, revised]));
    expect(yellow.every((r) => r.evidence.border === 'unknown')).toBe(true);
  });

  it('identifies a Yu-Gi-Oh! printing by its print code, whichever rarity row the catalog holds it in', async () => {
    // yaml-yugi rows: one per print code and rarity (src/catalog/formats/yugioh.ts)
    const ygo = (code: string, rarity: string) => card(`${code}|${rarity}|Set|10000001`, 'Test Dragon of Light', code, null, null, { setCode: code.split('-')[0]!, setCodes: [], numberNorm: code });
    const rows = [ygo('TST-EN001', 'Ultra Rare'), ygo('TS25-EN001', 'Secret Rare'), ygo('TS25-EN001', 'Ultra Rare')];
    const at = (code: string | null) => readCardText(lines([['Test Dragon of Light', 0.04, 0.06, 0.05], ...(code ? [[code, 0.72, 0.7, 0.025] as [string, number, number, number]] : []), ['ATK/3000 DEF/2500', 0.91, 0.5, 0.02], ['10000001', 0.955, 0.04, 0.015]]));
    expect(at('TS25-EN001').numbers.map((n) => [n.key, n.form])).toEqual([['TS25-EN001', 'promo']]);
    const ranked = await identify(at('TS25-EN001'), source(rows));
    const best = bestMatch(ranked);
    expect(best?.card.number).toBe('TS25-EN001');
    expect(printingMatch(ranked)).toBe(best);
    // the other set's printing is told apart by the code (its digits another number's), the other rarity is the alternative
    expect(ranked.find((r) => r.card.number === 'TST-EN001')!.evidence.number).toBe('differs');
    expect(ranked[1]!.card.number).toBe('TS25-EN001');
    expect(bestMatch(await identify(at('TST-EN001'), source(rows)))?.card.number).toBe('TST-EN001');
    // with no code read, the name alone cannot tell the two sets apart at the printing level
    expect(printingMatch(await identify(at(null), source(rows)))).toBeNull();
    // a reprint under the same code in another set (25th-anniversary editions) is another printing, not another rarity
    const reprinted = [{ ...rows[0]!, setName: 'Legend of Test Dragon' }, { ...rows[0]!, key: 'TST-EN001|Ultra Rare|25th|10000001', setName: 'Legend of Test Dragon (25th Anniversary Edition)' }];
    const both = await identify(at('TST-EN001'), source(reprinted));
    expect(both[0]!.score).toBe(both[1]!.score);
    expect(printingMatch(both)).toBeNull();
    expect(printingMatch(await identify(at('TST-EN001'), source([reprinted[0]!, { ...reprinted[0]!, key: 'TST-EN001|Secret Rare|Set|10000001' }])))).not.toBeNull();
  });

  it('reads a line put into English by its English name only: its own letters alike to another card say nothing', async () => {
    // `Sally` is Opal's French name; Wally's English name is one letter from it
    const opal = card('swsh4-158', 'Opal', '158', 185, '2020', { kind: 'trainer' });
    const wally = card('xy6-94', 'Wally', '94', 108, '2015', { kind: 'trainer' });
    const given = readCardText(lines([['DRESSEUR', 0.03, 0.1, 0.03], ['Sally', 0.06, 0.3, 0.05]]));
    const clues = { ...given, names: given.names.map((n) => (n.norm === 'sally' ? { ...n, english: { text: 'Opal', norm: 'opal' } } : n)) };
    expect(scoreCandidate(wally, clues).evidence.name).toBeLessThan(0.45);
    expect(scoreCandidate(opal, clues).evidence.name).toBe(1);
    expect(bestMatch(await identify(clues, source([opal, wally])))?.card.key).toBe('swsh4-158');
  });

  it('takes a name read without its logo suffix for the suffixed card where the HP says so, and the plain card where nothing else does', async () => {
    // `Pondralugon300`: the ex logo is not read, the HP is the ex's
    const plain = card('sv7-107', 'Archaludon', '107', 142, '2024', { hp: 130 });
    const ex = card('sv8-130', 'Archaludon ex', '130', 191, '2024', { hp: 300 });
    const named = (hp: string) => {
      const given = readCardText(lines([['Pondralugon', 0.05, 0.2, 0.05], ...(hp ? [[hp, 0.05, 0.75, 0.04] as [string, number, number, number]] : [])]));
      return { ...given, names: given.names.map((n) => ({ ...n, english: { text: 'Archaludon', norm: 'archaludon' } })) };
    };
    const withHp = await identify(named('300'), source([plain, ex]));
    expect(withHp.map((r) => r.card.key)).toEqual(['sv8-130', 'sv7-107']);
    expect(withHp[0]!.evidence.name).toBeCloseTo(SUFFIX_UNREAD);
    expect(bestMatch(withHp)?.card.key).toBe('sv8-130');
    // without the HP the two names cannot be told apart, and the plain name stays ahead
    const without = await identify(named(''), source([plain, ex]));
    expect(without[0]!.card.key).toBe('sv7-107');
    expect(bestMatch(without)).toBeNull();
    // a suffix is a logo only after a space: `Eevee` is no `Eeve` with a suffix
    expect(logoStem('Archaludon ex')).toBe('archaludon');
    expect(logoStem('Pikachu VMAX')).toBe('pikachu');
    expect(logoStem('Eevee')).toBeNull();
    expect(logoStem('Professor Oak')).toBeNull();
  });

  it('scores every printing of a name with many, not the first 20 the store gives', async () => {
    // 40 printings in key order, the one with the HP read last
    const magnetons = Array.from({ length: 39 }, (_, i) => card(`a${String(i).padStart(2, '0')}-1`, 'Magneton', '001', 100, '2010', { hp: 80 }));
    const promo159 = card('svp-159', 'Magneton', '159', null, null, { hp: 100 });
    const ranked = await identify(readCardText(lines([['Magneton', 0.05, 0.2, 0.05], ['100', 0.05, 0.75, 0.04]])), source([...magnetons, promo159]));
    expect(NAME_PRINTINGS).toBeGreaterThanOrEqual(40);
    expect(ranked[0]!.card.key).toBe('svp-159');
    expect(bestMatch(ranked)?.card.key).toBe('svp-159');
  });

  it('takes a run of digits for a number only where its total is the candidate’s', () => {
    const fearow = card('xy6-66', 'Fearow', '66', 108, '2015');
    const other = card('xy1-66', 'Clauncher', '66', 146, '2014');
    const clues = read([['66108', 0.93]]);
    // the split was chosen for its total to be the candidate's: that total is no second clue
    expect(scoreCandidate(fearow, clues).evidence).toMatchObject({ number: 'same', total: 'unknown' });
    expect(scoreCandidate(fearow, clues).score).toBeLessThan(MIN_SCORE);
    expect(scoreCandidate(other, clues).evidence.number).toBe('none');
    // with a name read beside it, the run names the card
    const named = read([['Fearow', 0.95], ['66108', 0.93]]);
    expect(scoreCandidate(fearow, named).score).toBeGreaterThanOrEqual(MIN_SCORE);
  });

  it('scores artwork from full at 20 bits to nothing at 60', () => {
    expect(artScore(null)).toBe(0);
    expect(artScore(0)).toBe(WEIGHTS.art);
    expect(artScore(20)).toBe(WEIGHTS.art);
    expect(artScore(40)).toBeCloseTo(WEIGHTS.art / 2, 9);
    expect(artScore(60)).toBe(0);
    expect(artScore(89)).toBe(0);
    expect(artScore(90)).toBe(WEIGHTS.artDiffers);
  });

  it('measures names by edits, a capital I read as l (or the other way) being no edit', () => {
    expect(nameLikeness('pikachv', 'pikachu')).toBeCloseTo(6 / 7, 6);
    expect(nameLikeness('', 'pikachu')).toBe(0);
    expect(nameLikeness('lvysaur', 'ivysaur')).toBe(1);
    expect(nameLikeness('iillie', 'lillie')).toBe(1);
    expect(nameLikeness('lvysaur', 'ivysaux')).toBeCloseTo(6 / 7, 6);
  });

  it('takes a number one digit from the candidate’s, padded as printed, for a near miss', () => {
    const ivysaur = card('sv3pt5-2', 'Ivysaur', '2', 165, '2023', { hp: 100 });
    const clues = read([['lvysaur', 0.05], ['102/165', 0.93]]);
    expect(scoreCandidate(ivysaur, clues).evidence).toMatchObject({ number: 'near', name: 1 });
    expect(scoreCandidate(ivysaur, read([['lvysaur', 0.05], ['157/165', 0.93]])).evidence.number).toBe('differs');
    // a leading 1 lost on a small photo (`92/09` read on a 192/091) is a near miss, any other digit lost is not
    const varoom = card('sv4pt5-192', 'Varoom', '192', 91, '2024', { hp: 60 });
    expect(scoreCandidate(varoom, read([['Varoom', 0.05], ['92/09', 0.93]])).evidence.number).toBe('near');
    expect(scoreCandidate(card('sv4pt5-292', 'Varoom', '292', 91, '2024'), read([['Varoom', 0.05], ['92/09', 0.93]])).evidence.number).toBe('differs');
    expect(scoreCandidate(card('sv4pt5-19', 'Varoom', '19', 91, '2024'), read([['Varoom', 0.05], ['9/091', 0.93]])).evidence.number).toBe('near');
    // read with its zeros (`005` on an 085, h183): one digit misread, not a digit fewer
    const minotaur = card('akh-85', 'Cursed Minotaur', '85', 269, '2017');
    expect(scoreCandidate(minotaur, read([['Cursed Minotaur', 0.05], ['005/269', 0.93]])).evidence.number).toBe('near');
    expect(scoreCandidate(minotaur, read([['Cursed Minotaur', 0.05], ['006/269', 0.93]])).evidence.number).toBe('differs');
  });

  it('takes a set total read on a card large enough to read it for another set’s card: against the number, and against a near miss', () => {
    const large = (r: ReturnType<typeof readCardText>) => ({ ...r, cardWidth: SURE_PRINT_CARD });
    const small = (r: ReturnType<typeof readCardText>) => ({ ...r, cardWidth: SURE_PRINT_CARD - 1 });
    // SV151's Snorlax 143/165 held out of the catalog: Lost Origin's Snorlax 143/196 has the number
    const lost = card('swsh11-143', 'Snorlax', '143', 196, '2022', { hp: 150 });
    const clues = read([['Snorlax', 0.05], ['143/165', 0.93]]);
    const onLarge = scoreCandidate(lost, large(clues));
    const onSmall = scoreCandidate(lost, small(clues));
    expect(onLarge.evidence).toMatchObject({ number: 'same', total: 'differs', surePrint: true });
    expect(onSmall.evidence).toMatchObject({ number: 'same', total: 'differs', surePrint: false });
    expect(onSmall.score - onLarge.score).toBe(WEIGHTS.totalDiffers - WEIGHTS.totalDiffersSure);
    // the number one digit off over another set's total is that set's card on a large card, a misread on a small one
    const surging = card('sv8-144', 'Snorlax', '144', 191, '2024', { hp: 150 });
    expect(scoreCandidate(surging, large(clues)).evidence.number).toBe('differs');
    expect(scoreCandidate(surging, small(clues)).evidence.number).toBe('near');
    // a total misread by a digit, or with one more (`TG02/630` on a Trainer Gallery card of 30), still fits
    const gallery = card('swsh11tg-TG02', 'Roserade', 'TG02', 30, '2022', { hp: 120 });
    expect(scoreCandidate(gallery, large(read([['Roserade', 0.05], ['TG02/630', 0.93]]))).evidence).toMatchObject({ number: 'same', total: 'unknown' });
    expect(scoreCandidate(lost, large(read([['Snorlax', 0.05], ['143/186', 0.93]]))).evidence.total).toBe('unknown');
    // a creature's power and toughness (`4/4`) is no collector line: its `total` is never read surely
    const serra = card('m20-4', 'Serra Angel', '4', 280, '2019');
    const pt = read([['Serra Angel', 0.05], ['4/4', 0.93]]);
    expect(scoreCandidate(serra, large(pt)).evidence).toMatchObject({ number: 'same', total: 'differs', surePrint: false });
    expect(scoreCandidate(serra, large(pt)).score).toBe(scoreCandidate(serra, small(pt)).score);
    expect([totalFits(165, 165), totalFits(166, 165), totalFits(630, 30), totalFits(1650, 165), totalFits(65, 165), totalFits(196, 165), totalFits(25, 165)]).toEqual([true, true, true, true, true, false, false]);
  });

  it("reads a Magic creature's power and toughness as no collector line, a face's name as its card's, and a dashed code as unique (h119)", async () => {
    const mtg = { catalogKind: 'mtg' };
    // Ishi-Ishi's `1/1`: the number 1 of a one-card promo set was an alternative at a printing's distance
    const onePromo = card('pf21-1', 'Path of Ancestry', '1', 1, '2021', mtg);
    const ishi = card('bok-110', 'Ishi-Ishi, Akki Crackshot', '110', 165, '2005', mtg);
    const pt = read([['Ishi-Ishi, Akki Crackshot', 0.05], ['1/1', 0.93]]);
    expect(scoreCandidate(onePromo, pt).evidence).toMatchObject({ number: 'none', total: 'unknown' });
    expect(bestMatch(await identify(pt, source([onePromo, ishi])))?.card.key).toBe('bok-110');
    // a Pokémon set of five prints `1/5`: still its collector line
    expect(scoreCandidate(card('fut20-1', 'Pikachu on the Ball', '1', 5, '2020'), read([['Pikachu on the Ball', 0.05], ['1/5', 0.93]])).evidence).toMatchObject({ number: 'same', total: 'same' });
    // a split or double-faced card prints one face's name: as alike as that face, and other cards of its number and total named otherwise count against
    const giant = card('eld-115', 'Bonecrusher Giant // Stomp', '115', 269, '2019', mtg);
    const goblin = card('dom-115', 'Bloodstone Goblin', '115', 269, '2018', mtg);
    const faceRead = { ...read([['Bonecrusher Giant', 0.05], ['115/269', 0.93]]) };
    faceRead.names = faceRead.names.map((n) => ({ ...n, score: NAME_READ.minScore }));
    expect(scoreCandidate(giant, faceRead).evidence.name).toBe(1);
    const known = englishNameLines(faceRead, [giant, goblin]);
    expect(known.has('bonecrushergiant')).toBe(true);
    expect(scoreCandidate(goblin, faceRead, new Map(), undefined, known).evidence.nameDiffers).toBe(true);
    // Yu-Gi-Oh!'s `SDK-001`, held by one printing, is a unique code as `SWSH131` is
    const sdk = { ...card('sdk-1', 'Blue-Eyes White Dragon', 'SDK-001', null, null), numberNorm: 'SDK-001' };
    expect(scoreCandidate(sdk, read([['Blue-EyesWhiteI', 0.05], ['SDK-001', 0.93]]), new Map([['SDK-001', 1]])).evidence.uniqueCode).toBe(true);
  });

  it('names no printing at the name level where a large card’s total says the name’s printings here are other sets’', async () => {
    // SV151's Bulbasaur 001/165, held out: every Bulbasaur numbered 1 the catalog has is of another set
    const bulbasaurs = [card('mcd21-1', 'Bulbasaur', '1', 25, '2021', { hp: 70 }), card('pgo-1', 'Bulbasaur', '1', 78, '2022', { hp: 70 })];
    const clues = read([['Bulbasaur', 0.05], ['70', 0.05], ['001/165', 0.93]]);
    expect(bestMatch(await identify({ ...clues, cardWidth: SURE_PRINT_CARD }, source(bulbasaurs)))).toBeNull();
    // on a small card the total is too often misread to hold the name back
    expect(bestMatch(await identify({ ...clues, cardWidth: 200 }, source(bulbasaurs)))?.card.name).toBe('Bulbasaur');
  });
});
