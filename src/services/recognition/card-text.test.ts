import { describe, expect, it } from 'vitest';
import { comicNames, comicNumbers, cornerIssueNumbers, joinedNames, normalizeName, numberKey, readCardText, readName, type CardTextLine } from './card-text.ts';

/** Lines as [text, top, left, height] on the upright card, the way the OCR returned them for real photos. */
const lines = (rows: [string, number, number, number][]): CardTextLine[] => rows.map(([text, y, x, h]) => ({ text, prob: 0.9, box: { x0: x, y0: y, x1: x + 0.3, y1: y + h } }));

// A French Tyranocif V (train-split photo), as PP-OCRv4 read the upright card at 630 px.
const tyranocif = lines([
  ['BASE', 0.05, 0.11, 0.023],
  ['Tyranocif', 0.05, 0.24, 0.045],
  ['230', 0.04, 0.7, 0.052],
  ['*-Lapid', 0.65, 0.13, 0.049],
  ['Defaussezles 2cartes', 0.69, 0.1, 0.027],
  ['Ecrasement Poing Final 240', 0.76, 0.32, 0.041],
  ['Faiblesse', 0.85, 0.06, 0.018],
  ['Resistance', 0.86, 0.3, 0.02],
  ['Retraite', 0.88, 0.6, 0.023],
  ['luAyako Yoshida', 0.9, 0.07, 0.023],
  ['097/163*', 0.92, 0.06, 0.036],
  ["T'adversaire recupere 2cartes Recompense.", 0.94, 0.37, 0.02],
  ['02021P', 0.98, 0.3, 0.013],
]);

describe('readCardText', () => {
  it('reads the collector number, HP, year, name and language of a real French card', () => {
    const c = readCardText(tyranocif);
    expect(c.numbers).toEqual([expect.objectContaining({ number: '097', total: '163', key: '97', form: 'fraction' })]);
    expect(c.hp).toBe(230);
    expect(c.year).toBe('2021');
    expect(c.names[0]!.text).toBe('Tyranocif');
    expect(c.names.map((n) => n.norm)).not.toContain('base');
    expect(c.names.map((n) => n.norm)).not.toContain('resistance');
    expect(c.language).toBe('fr');
  });

  it("takes the language a Magic set line or a Yu-Gi-Oh! code prints where no furniture word names one (h119, rule s41 (b))", () => {
    expect(readCardText(lines([['Steinschmiede-Mystikerin', 0.05, 0.1, 0.04], ['020/249 R', 0.93, 0.05, 0.02], ['WWK·DE', 0.95, 0.05, 0.02]])).language).toBe('de');
    expect(readCardText(lines([['Blauäugiger w. Drache', 0.05, 0.1, 0.04], ['LOB-DE001', 0.6, 0.6, 0.02]])).language).toBe('de');
    expect(readCardText(lines([['Blue-Eyes White Dragon', 0.05, 0.1, 0.04], ['SDK-001', 0.6, 0.6, 0.02]])).language).toBeNull();
    // two codes that disagree say nothing
    expect(readCardText(lines([['x', 0.05, 0.1, 0.04], ['LOB-DE001', 0.6, 0.6, 0.02], ['DOM·EN', 0.95, 0.05, 0.02]])).language).toBeNull();
    // the artist's name run into the language code, at the bottom line's start (h183: English MTG cards had none)
    const syrAlin = lines([["SyrAlin,the Lion'sClaw", 0.05, 0.08, 0.04], ['3*米', 0.05, 0.8, 0.03], ['chaos ofthe twilds.', 0.8, 0.1, 0.02], ['032/2690', 0.93, 0.05, 0.02], ['ELD.ENLSOETCAAA', 0.95, 0.05, 0.02]]);
    expect(readCardText(syrAlin)).toMatchObject({ language: 'en', setCodes: expect.arrayContaining(['ELD']) });
    expect(readCardText(lines([['WirewoodSavage', 0.05, 0.1, 0.04], ['004/641', 0.93, 0.05, 0.02], ['GVL·ENDIEU', 0.95, 0.05, 0.02]])).language).toBe('en');
    // not in the card's text box, and not a word that merely starts so
    expect(readCardText(lines([['Rules', 0.05, 0.1, 0.04], ['DRAW.ENTERS', 0.6, 0.05, 0.02]])).language).toBeNull();
    // a mana cost read as Han characters is no Japanese (h183)
    expect(readCardText(lines([["Syr Alin, the Lion's Claw", 0.05, 0.08, 0.04], ['3米米', 0.05, 0.8, 0.03], ['4/4', 0.9, 0.8, 0.02]])).language).toBeNull();
    // furniture words decide first (the French Tyranocif stays French)
    expect(readCardText([...tyranocif, ...lines([['WWK·DE', 0.96, 0.05, 0.02]])]).language).toBe('fr');
  });

  it('takes a letter glued before the number for the regulation mark', () => {
    const c = readCardText(lines([['F120/195', 0.93, 0.12, 0.024], ['02022P3', 0.97, 0.3, 0.014]]));
    expect(c.numbers[0]).toMatchObject({ number: '120', total: '195' });
    expect(c.regulationMark).toBe('F');
    expect(c.year).toBe('2022');
  });

  it('keeps a prefix shared by number and total, and reads promo codes alone', () => {
    const c = readCardText(lines([['TG05/TG30', 0.93, 0.1, 0.02], ['SWSH2O4', 0.95, 0.1, 0.02]]));
    expect(c.numbers.map((n) => [n.number, n.total, n.key])).toEqual([
      ['TG05', 'TG30', 'TG5'],
      ['SWSH204', null, 'SWSH204'],
    ]);
  });

  it('reads a number glued to the set code or a mark before it, as wide as its total', () => {
    // as PP-OCRv4 read the bottom bands of real French cards (train split)
    const c = readCardText(lines([['GSVIR194/198', 0.95, 0.05, 0.02], ['s120067/172RR', 0.94, 0.05, 0.02], ['3060/142', 0.93, 0.05, 0.02]]));
    expect(c.numbers.map((n) => [n.number, n.total])).toEqual([
      ['194', '198'],
      ['067', '172'],
      ['060', '142'],
    ]);
    // the slash read as a 7 is not a fraction
    expect(readCardText(lines([['0657072', 0.93, 0.05, 0.02]])).numbers.filter((n) => n.form === 'fraction')).toEqual([]);
  });

  it('takes no padded number that lost a digit for a collector number, and keeps padded ones as wide as their total', () => {
    // Gengar 094/165 read at 1600 px (a generated scene): `09` is no card's number
    expect(readCardText(lines([['RTD09/165', 0.93, 0.05, 0.02]])).numbers.filter((n) => n.form === 'fraction')).toEqual([]);
    expect(readCardText(lines([['09/165', 0.93, 0.05, 0.02]])).numbers.filter((n) => n.form === 'fraction')).toEqual([]);
    const kept = (text: string) => readCardText(lines([[text, 0.93, 0.05, 0.02]])).numbers.filter((n) => n.form === 'fraction').map((n) => [n.number, n.total]);
    expect(kept('094/165')).toEqual([['094', '165']]);
    // an older, unpadded number; a prefixed gallery number over its total
    expect(kept('9/102')).toEqual([['9', '102']]);
    expect(kept('TG02/TG30')).toEqual([['TG02', 'TG30']]);
  });

  it('reads a promo code whose S came out small, and a year whose © was lost', () => {
    const c = readCardText(lines([['sWSH294', 0.93, 0.1, 0.02], ['2022Pokemor/Nintendo/Creatures', 0.97, 0.3, 0.014]]));
    expect(c.numbers.map((n) => n.number)).toEqual(['SWSH294']);
    expect(c.year).toBe('2022');
    // a number in the rules text is no year
    expect(readCardText(lines([['Piochez 2020 cartes', 0.7, 0.1, 0.02]])).year).toBeNull();
  });

  it('reads the regulation mark and set code run into a Scarlet & Violet collector line', () => {
    // as PP-OCRv4 read the bottom bands of real French cards (train split)
    const a = readCardText(lines([['GSVIR194/198', 0.95, 0.05, 0.02]]));
    expect(a).toMatchObject({ regulationMark: 'G', setCodes: ['SVI'] });
    expect(a.numbers[0]).toMatchObject({ number: '194', total: '198' });
    expect(readCardText(lines([['GPARR', 0.94, 0.05, 0.02], ['158/182★', 0.95, 0.2, 0.02]]))).toMatchObject({ regulationMark: 'G', setCodes: ['PAR'] });
    // the language code read as one letter before the number; not a word at a line's end
    expect(readCardText(lines([['GSVIH086/198', 0.9, 0.05, 0.02]]))).toMatchObject({ regulationMark: 'G', setCodes: ['SVI'] });
    expect(readCardText(lines([['©2023 Pokémon/Nintendo/Creatures/GAME FREAK', 0.9, 0.05, 0.02]]))).toMatchObject({ regulationMark: null, setCodes: [] });
    expect(readCardText(lines([['OBFFR', 0.94, 0.05, 0.02], ['156/197', 0.95, 0.2, 0.02]])).setCodes).toEqual(['OBF']);
    // a Scarlet & Violet promo: the number as the catalogs write it, in the set PR-SV
    const svp = readCardText(lines([['SVPH033', 0.9, 0.05, 0.02]]));
    expect(svp.numbers.map((n) => [n.number, n.key, n.form])).toEqual([['033', '33', 'promo']]);
    expect(svp.setCodes).toEqual(['PR-SV']);
    // words of the rules text and the copyright line are no set codes
    expect(readCardText(lines([['FEVGAMEFREAK', 0.97, 0.3, 0.02], ['RegleV', 0.9, 0.1, 0.02]])).setCodes).toEqual([]);
  });

  it("takes a set line with its year for no name (h103: /card_ocr_id named a sport card '2022TOPPSSERIES1')", () => {
    const c = readCardText(lines([['2022TOPPSSERIES1', 0.05, 0.1, 0.05], ['RONALD ACUNA JR.', 0.85, 0.1, 0.04], ['#200', 0.93, 0.1, 0.02]]));
    expect(c.names.map((n) => n.text)).not.toContain('2022TOPPSSERIES1');
    expect(c.names[0]!.text).toBe('RONALD ACUNA JR.');
  });

  it('reads a sport card number written #50 or No. 50', () => {
    expect(readCardText(lines([['CHICAGO CUBS #50', 0.93, 0.1, 0.02]])).numbers.map((n) => n.key)).toEqual(['50']);
    expect(readCardText(lines([['No. 212', 0.93, 0.1, 0.02]])).numbers.map((n) => n.key)).toEqual(['212']);
    // with the set's letters as printed (h224: Update, Traded, Bowman prospects), and no number in a word
    expect(readCardText(lines([['ATLANTA BRAVES #US250', 0.93, 0.1, 0.02]])).numbers.map((n) => n.number)).toEqual(['US250']);
    expect(readCardText(lines([['DODGERS #855T', 0.93, 0.1, 0.02]])).numbers.map((n) => n.number)).toEqual(['855T']);
    expect(readCardText(lines([['No. BCP-25', 0.93, 0.1, 0.02]])).numbers.map((n) => n.number)).toEqual(['BCP-25']);
    expect(readCardText(lines([['#50TH ANNIVERSARY', 0.5, 0.1, 0.02]])).numbers).toEqual([]);
  });

  it('tells Japanese by its kana or by Han characters with no word only Chinese cards print, Chinese by such words', () => {
    expect(readCardText(lines([['カイオーガ', 0.05, 0.2, 0.05], ['036/190', 0.93, 0.05, 0.02]])).language).toBe('ja');
    // the recogniser reads katakana as look-alike Han (a real Japanese Zacian V: ザシアン as 龙粉)
    expect(readCardText(lines([['龙粉', 0.05, 0.2, 0.05], ['抵抗力', 0.9, 0.1, 0.02]])).language).toBe('ja');
    expect(readCardText(lines([['ex儿一儿', 0.6, 0.1, 0.02], ['相手2枚', 0.7, 0.1, 0.02], ['抵抗力', 0.9, 0.1, 0.02]])).language).toBe('ja');
    // a Chinese card's bottom band names the retreat cost 撤退 (Japanese cards print にげる)
    expect(readCardText(lines([['喷火龙', 0.05, 0.2, 0.05], ['弱点 抵抗力 撤退', 0.9, 0.1, 0.02]])).language).toBe('zh');
    expect(readCardText(lines([['1阶进化', 0.03, 0.1, 0.05], ['噴火龍', 0.05, 0.2, 0.05], ['弱點 抵抗力', 0.9, 0.1, 0.02]])).language).toBe('zh');
    // two in the name band are a name, not a smudge: a Japanese slab's Scizor ex read as 八么ex and little else
    // matched the English Milotic ex of its number and total (096/106)
    expect(readCardText(lines([['八么ex', 0.05, 0.2, 0.05], ['096/106', 0.93, 0.05, 0.02]])).language).toBe('ja');
    expect(readCardText(lines([['Goelise', 0.05, 0.2, 0.05], ['卖-30', 0.5, 0.3, 0.02], ['PAFR203/091', 0.94, 0.05, 0.02]])).language).toBeNull();
    // one stray character on a French card (as read on a real photo) says nothing
    expect(readCardText(lines([['Goelise', 0.05, 0.2, 0.05], ['卖-30', 0.88, 0.3, 0.02], ['PAFR203/091', 0.94, 0.05, 0.02]])).language).toBeNull();
  });

  it('leaves an English card English when a glare streak reads as Han characters and its name line is Latin (h108)', () => {
    // Bill's Transfer on a binder page, as read: its name, set code and number plainly, and four Han characters from the glare
    const c = readCardText(lines([['Supporter', 0.03, 0.1, 0.03], ['TRAINER', 0.03, 0.7, 0.03], ["Bill's Transfer", 0.06, 0.1, 0.05], ['中国足排', 0.3, 0.4, 0.03], ['MEWE194/1651', 0.94, 0.05, 0.02]]));
    expect(c.names[0]!.text).toBe("Bill's Transfer");
    expect(c.language).not.toBe('zh');
    expect(c.language).not.toBe('ja');
    // kana is never glare: a Japanese card printing its name in Latin letters stays Japanese (h116)
    expect(readCardText(lines([['たね', 0.03, 0.1, 0.03], ['Pikachu ex', 0.06, 0.2, 0.05], ['ポケモンexがきぜつしたとき', 0.7, 0.1, 0.02], ['025/165 RR', 0.94, 0.05, 0.02]])).language).toBe('ja');
  });

  it('names the game by what only one game prints, and none when nothing does', () => {
    // the Japanese card that an MTG card numbered 5 in a set of 71 once matched: its resistance line in Japanese
    expect(readCardText(lines([['1道化', 0.03, 0.1, 0.05], ['抵抗力', 0.9, 0.4, 0.03], ['illus.Sban Grophics', 0.93, 0.05, 0.03], ['SV2D005/071RR', 0.95, 0.05, 0.03]])).game).toBe('pokemon');
    expect(readCardText(lines([['Faiblesse Résistance Retraite', 0.88, 0.1, 0.03], ['©2021 Pokémon/Nintendo', 0.96, 0.1, 0.02]])).game).toBe('pokemon');
    expect(readCardText(lines([['Serra Angel', 0.04, 0.1, 0.05], ['™ & © 2019 Wizards of the Coast', 0.96, 0.3, 0.02]])).game).toBe('mtg');
    expect(readCardText(lines([['Dark Magician', 0.04, 0.1, 0.05], ['ATK/2500 DEF/2100', 0.85, 0.5, 0.03], ['©1996 KAZUKI TAKAHASHI ©2020 KONAMI', 0.96, 0.1, 0.02]])).game).toBe('yugioh');
    expect(readCardText(lines([['Pikachu', 0.04, 0.1, 0.05], ['025/165', 0.95, 0.05, 0.03]])).game).toBeNull();
    // failing those words, an HP: a Japanese Tyranitar ex on a small photo, whose `032/106R` a Magic printing shares
    expect(readCardText(lines([['2340', 0.04, 0.72, 0.04], ['ex为一', 0.08, 0.2, 0.04], ['032/106R', 0.93, 0.05, 0.02]])).game).toBe('pokemon');
    // the words first: a number read as an HP on a Magic card does not make it a Pokémon
    const angel = readCardText(lines([['Serra Angel', 0.04, 0.1, 0.05], ['120', 0.04, 0.75, 0.04], ['™ & © 2019 Wizards of the Coast', 0.96, 0.3, 0.02]]));
    expect(angel.hp).toBe(120);
    expect(angel.game).toBe('mtg');
  });

  it('gives as the read name only a line where names are set, never the credit, copyright or stage furniture', () => {
    const foot = [['lllus.Yukiko Baba', 0.93, 0.05, 0.02], ['2004 Pokemon/Nintendo/Crealures/GAMEFREAK', 0.96, 0.1, 0.02], ['抵抗力', 0.9, 0.4, 0.02]] as const;
    expect(readName(readCardText(lines(foot.map((l) => [...l] as [string, number, number, number]))).names)).toBeNull();
    expect(readName(readCardText(lines([['1進化求', 0.03, 0.1, 0.04], ['Umbreon', 0.06, 0.2, 0.05], ...foot.map((l) => [...l] as [string, number, number, number])])).names)).toBe('Umbreon');
    // furniture by its words wherever it sits: a credit and a copyright line read large in the top band
    expect(readName(readCardText(lines([['lllus.Yukiko Baba', 0.04, 0.1, 0.05], ['2004 Pokemon/Nintendo', 0.08, 0.1, 0.05], ['Espeon', 0.12, 0.1, 0.05]])).names)).toBe('Espeon');
    // a Japanese card's name read as Han look-alikes of its katakana (カイオーガ as 才一力) is no name; one with kana is
    const ja = (name: string) => readName([{ text: name, norm: name, prob: 0.9, score: 0.8 }], 'ja');
    expect(ja('才一力')).toBeNull();
    expect(ja('之之VAX')).toBeNull();
    expect(ja('ピカチュウ')).toBe('ピカチュウ');
    expect(readName([{ text: '才一力', norm: '才一力', prob: 0.9, score: 0.8 }], 'zh')).toBe('才一力');
    // a sport card maker's logo over the photo is no player, the name at the foot is (h316: /card_ocr_id answered "Topps")
    const front = readCardText(lines([['Topps', 0.07, 0.1, 0.045], ['RONALD ACUNA JR.', 0.87, 0.09, 0.04], ['ATLANTABRAVES', 0.92, 0.09, 0.03], ['#200', 0.92, 0.76, 0.03]]));
    expect(readName(front.names)).toBe('RONALD ACUNA JR.');
    expect(front.names.map((n) => n.text)).not.toContain('Topps');
    expect(readName(readCardText(lines([['PRIZM', 0.04, 0.1, 0.05], ['UPPER DECK', 0.1, 0.1, 0.05], ['LEBRON JAMES', 0.88, 0.1, 0.04]])).names)).toBe('LEBRON JAMES');
    // a set line that names the maker is no name either way, and a name holding a maker's word is still one
    expect(readCardText(lines([['Bowman Chrome', 0.04, 0.1, 0.05], ['Fleer Bowman', 0.9, 0.1, 0.04]])).names.map((n) => n.text)).toEqual(['Fleer Bowman']);
  });

  it('undoes digit look-alikes only inside numbers', () => {
    const c = readCardText(lines([['O97/l63', 0.93, 0.1, 0.02], ['Slowbro', 0.05, 0.2, 0.05]]));
    expect(c.numbers[0]).toMatchObject({ number: '097', total: '163' });
    expect(c.names[0]!.text).toBe('Slowbro');
    // mostly letters: a word, not a number
    expect(readCardText(lines([['IS/IO', 0.93, 0.1, 0.02]])).numbers).toEqual([]);
  });

  it('reads Yu-Gi-Oh! print codes and MTG set lines', () => {
    const c = readCardText(lines([['LOB-ENOO1', 0.7, 0.6, 0.02], ['DOM • EN', 0.95, 0.05, 0.02], ['123/280 R', 0.93, 0.05, 0.02]]));
    expect(c.printCodes).toEqual(['LOB-EN001']);
    expect(c.setCodes).toEqual(['DOM']);
    // the print code is the Yu-Gi-Oh! printing's collector number, a sure one
    expect(c.numbers.map((n) => [n.key, n.form])).toEqual([['LOB-EN001', 'promo'], ['123', 'fraction']]);
    expect(c.numbers[1]).toMatchObject({ number: '123', total: '280' });
  });

  it('reads HP written with its letters, in any language', () => {
    expect(readCardText(lines([['pv150', 0.05, 0.75, 0.04]])).hp).toBe(150);
    expect(readCardText(lines([['HP 60', 0.05, 0.75, 0.04]])).hp).toBe(60);
    // a damage figure lower on the card is not the HP
    expect(readCardText(lines([['120', 0.75, 0.83, 0.036]])).hp).toBeNull();
  });

  it('reads HP beside a misread letter, with the type symbol after it, or glued to the name', () => {
    // the top-right corner of real French cards (train split), as PP-OCRv4 read it
    expect(readCardText(lines([['v60', 0.05, 0.75, 0.04]])).hp).toBe(60);
    expect(readCardText(lines([['2106', 0.05, 0.75, 0.04]])).hp).toBe(210);
    const glued = readCardText(lines([['Ethernatos Radieuxw170', 0.05, 0.2, 0.05]]));
    expect(glued.hp).toBe(170);
    expect(glued.names.map((n) => n.text)).toEqual(['Ethernatos Radieuxw', 'Ethernatos Radieux']);
    expect(readCardText(lines([['Pondralugon300', 0.05, 0.2, 0.05]])).names.map((n) => n.text)).toEqual(['Pondralugon', 'Pondralugo']);
    // four digits: the type symbol after the HP, or else the HP mark before it, read as a digit
    // (small photos of the train split, shrunk: `SHRINK=400 scripts/recognition-dev.ts`)
    expect(readCardText(lines([['2320', 0.05, 0.75, 0.04]])).hp).toBe(320);
    expect(readCardText(lines([['2230', 0.05, 0.75, 0.04]])).hp).toBe(230);
    expect(readCardText(lines([['2100', 0.05, 0.75, 0.04]])).hp).toBe(210);
    expect(readCardText(lines([['4567', 0.05, 0.75, 0.04]])).hp).toBeNull();
    const four = readCardText(lines([['Typhlosioni2100', 0.05, 0.2, 0.05]]));
    expect([four.hp, four.names.map((n) => n.text)]).toEqual([210, ['Typhlosioni', 'Typhlosion']]);
    // a dash or a sign between the name and the HP
    const dashed = readCardText(lines([['CalyrexVx-320', 0.05, 0.2, 0.05]]));
    expect([dashed.hp, dashed.names.map((n) => n.text)]).toEqual([320, ['CalyrexVx', 'CalyrexV']]);
    const at = readCardText(lines([['Vrombotor@280', 0.05, 0.2, 0.05]]));
    expect([at.hp, at.names.map((n) => n.text)]).toEqual([280, ['Vrombotor', 'Vromboto']]);
    // HP are tens; a name ending in other digits keeps them
    expect(readCardText(lines([['Porygon2', 0.05, 0.2, 0.05]])).hp).toBeNull();
    expect(readCardText(lines([['x2', 0.05, 0.75, 0.04]])).hp).toBeNull();
  });

  it('reads what kind of card the top band names: a Pokémon, a trainer or an energy', () => {
    expect(readCardText(lines([['DRESSEUR', 0.03, 0.1, 0.03], ['Plume Ball', 0.06, 0.1, 0.05]])).kind).toBe('trainer');
    expect(readCardText(lines([['DRESSEIR', 0.03, 0.1, 0.03]])).kind).toBe('trainer');
    expect(readCardText(lines([['ENERGIE', 0.03, 0.1, 0.03]])).kind).toBe('energy');
    expect(readCardText(lines([['NIVEAUI', 0.03, 0.1, 0.03]])).kind).toBe('pokemon');
    expect(readCardText(lines([['Hoopa', 0.05, 0.2, 0.05], ['130', 0.05, 0.75, 0.04]])).kind).toBe('pokemon');
    // both, or the word lower on the card: nothing
    expect(readCardText(lines([['TRAINER', 0.03, 0.1, 0.03], ['BASIC', 0.04, 0.3, 0.03]])).kind).toBeNull();
    expect(readCardText(lines([['Trainer', 0.6, 0.1, 0.03]])).kind).toBeNull();
  });

  it('reads the illustrator credit however `Illus.` was read', () => {
    const credit = (t: string) => readCardText(lines([[t, 0.9, 0.05, 0.02]])).artist;
    expect(credit('llus.Studio Bora inc.')).toBe('studioborainc');
    expect(credit('Mlus.Mitsohiro Arite')).toBe('mitsohiroarite');
    expect(credit('lys.TomokozuKon')).toBe('tomokozukon');
    expect(credit('luAyako Yoshida')).toBe('ayakoyoshida');
    expect(credit('Illus. 5ban Graphics')).toBe('5bangraphics');
    expect(credit('Retraite')).toBeNull();
    // not in the bottom band
    expect(readCardText(lines([['Illus. Ken Sugimori', 0.5, 0.05, 0.02]])).artist).toBeNull();
  });

  it('reads codes run into the letters around them: the regulation mark before a prefixed number, a rarity mark after, an S read as 5', () => {
    const tg = readCardText(lines([['DTG25/TG30', 0.95, 0.05, 0.02]]));
    expect(tg.numbers.map((n) => [n.number, n.total])).toEqual([['TG25', 'TG30']]);
    expect(tg.regulationMark).toBe('D');
    expect(readCardText(lines([['TG08G', 0.95, 0.05, 0.02]])).numbers.map((n) => n.key)).toEqual(['TG8']);
    // a mark read as a letter that looks like a 0: both readings, the three digits first
    expect(readCardText(lines([['TG08O', 0.95, 0.05, 0.02]])).numbers.map((n) => n.key)).toEqual(['TG80', 'TG8']);
    expect(readCardText(lines([['SWSH131', 0.95, 0.05, 0.02]])).numbers.map((n) => n.key)).toEqual(['SWSH131']);
    expect(readCardText(lines([['SW5H131', 0.95, 0.05, 0.02]])).numbers.map((n) => n.key)).toEqual(['SWSH131']);
    // a mark after the total read as a digit: numbers are padded to the total's width
    expect(readCardText(lines([['GSVIR086/1981', 0.95, 0.05, 0.02]])).numbers.map((n) => [n.number, n.total])).toEqual([['086', '198']]);
  });

  it('splits a run of digits the slash was lost from (or read as a digit) every way it may be number and total, years apart', () => {
    const run = readCardText(lines([['66108', 0.93, 0.05, 0.02]])).numbers;
    expect(run.map((n) => [n.number, n.total, n.form])).toEqual([['66', '108', 'run']]);
    expect(readCardText(lines([['092196', 0.93, 0.05, 0.02]])).numbers.map((n) => [n.number, n.total])).toEqual([['092', '196']]);
    // the slash read as a digit: three digits either side of it
    expect(readCardText(lines([['1537197', 0.93, 0.05, 0.02]])).numbers.map((n) => [n.number, n.total, n.form])).toEqual([['153', '197', 'run']]);
    expect(readCardText(lines([['0383365', 0.93, 0.05, 0.02]])).numbers.map((n) => [n.number, n.total])).toEqual([['038', '365']]);
    // on a Yu-Gi-Oh! card seven digits are its passcode with a digit lost, no number
    const passcode = readCardText(lines([['©2020 KONAMI', 0.95, 0.5, 0.02], ['8963113', 0.93, 0.05, 0.02]]));
    expect(passcode.game).toBe('yugioh');
    expect(passcode.numbers).toEqual([]);
    expect(readCardText(lines([['12345678', 0.93, 0.05, 0.02]])).numbers).toEqual([]);
    // the same number and total read as a fraction too, wherever its line: the fraction, not the run
    const both = readCardText(lines([['1797163', 0.9, 0.05, 0.02], ['179/163', 0.93, 0.05, 0.02]])).numbers;
    expect(both.map((n) => [n.number, n.total, n.form])).toEqual([['179', '163', 'fraction']]);
    // a copyright year, its © read as a 0, and runs above the bottom band are no numbers
    expect(readCardText(lines([['02021', 0.97, 0.3, 0.02]])).numbers).toEqual([]);
    expect(readCardText(lines([['66108', 0.5, 0.05, 0.02]])).numbers).toEqual([]);
  });

  it('reads the resistance, -20 or -30, in the bottom band, as small photos read it', () => {
    const resistance = (text: string, y = 0.88) => readCardText(lines([[text, y, 0.4, 0.02]])).resistance;
    expect(['-20', '-30', 'Mta-30', 'Resistance-30', '6-30', '每-30', '– 20', '−30', '－20'].map((t) => resistance(t))).toEqual([20, 30, 30, 30, 30, 30, 20, 30, 20]);
    // an attack's damage, another number, a line above the bottom band, or both values: nothing
    expect(['120-', '-40', '30', '1-230', 'x2 -20 Retraite'].map((t) => resistance(t))).toEqual([null, null, null, null, null]);
    expect(resistance('-30', 0.5)).toBeNull();
    expect(readCardText(lines([['-20', 0.88, 0.4, 0.02], ['-30', 0.9, 0.4, 0.02]])).resistance).toBeNull();
  });

  it('says nothing it did not read', () => {
    const c = readCardText(lines([['Pikachu', 0.05, 0.2, 0.05]]));
    expect(c).toMatchObject({ numbers: [], printCodes: [], setCodes: [], year: null, regulationMark: null, hp: null, kind: null, artist: null, language: null });
    expect(readCardText([]).names).toEqual([]);
  });

  it('does not take a number in the rules text for a year', () => {
    expect(readCardText(lines([['Flip 2 coins. 2020 damage', 0.6, 0.1, 0.02]])).year).toBeNull();
  });
});

describe('sport and comic readings (h136, h137)', () => {
  it('joins a first name over a last name, and a name read in two fragments, ahead of the parts', () => {
    const card = lines([
      ['2022 TOPPS UPDATE', 0.04, 0.1, 0.03],
      ['JULIO', 0.86, 0.08, 0.03],
      ['RODRIGUEZ', 0.9, 0.08, 0.05],
      ['#44', 0.9, 0.8, 0.04],
    ]);
    const clues = readCardText(card);
    expect(joinedNames(clues.names, card).map((n) => n.norm)).toEqual(['juliorodriguez']);
    // side by side on one row
    const row: CardTextLine[] = [
      { text: 'RONALD', prob: 0.9, box: { x0: 0.08, y0: 0.9, x1: 0.3, y1: 0.94 } },
      { text: 'ACUNA JR.', prob: 0.9, box: { x0: 0.33, y0: 0.9, x1: 0.6, y1: 0.94 } },
    ];
    expect(joinedNames(readCardText(row).names, row).map((n) => n.text)).toEqual(['RONALD ACUNA JR.']);
    // lines far apart, or a line with digits, are no name together
    const apart = lines([
      ['MOOKIE', 0.05, 0.08, 0.03],
      ['BETTS', 0.9, 0.08, 0.05],
    ]);
    expect(joinedNames(readCardText(apart).names, apart)).toEqual([]);
  });

  it("reads a comic's issue as printed, and its series with and without The, not the publisher's logo", () => {
    const cover = (text: string) => readCardText(lines([[text, 0.05, 0.1, 0.06]]));
    const issues = (text: string) => comicNumbers(cover(text).numbers.filter((n) => n.form === 'hash'), cover(text).issueNumbers).map((n) => n.key);
    expect(issues('AMAZING SPIDER-MAN #654.1')).toEqual(['654.1']);
    expect(issues('CABLE #-1')).toEqual(['-1']);
    expect(issues('WIZARD X-MEN #1/2')).toEqual(['1/2']);
    expect(issues('SPAWN #12A')).toEqual(['12A']);
    expect(issues('BATMAN #423')).toEqual(['423']);
    expect(issues('No. 27')).toEqual(['27']);
    // another number that begins alike stays (h143: #2 beside CONTINUED IN #25.1 was dropped)
    const two = readCardText(lines([['X-FORCE #2', 0.05, 0.1, 0.06], ['CONTINUED IN #25.1', 0.9, 0.1, 0.03]]));
    expect(comicNumbers(two.numbers.filter((n) => n.form === 'hash'), two.issueNumbers).map((n) => n.key).sort()).toEqual(['2', '25.1']);
    // the corner box's bare issue (`300` between the price and the month), not a price, a year or the foot's digits (h316)
    const box = lines([['MARVEL', 0.01, 0.01, 0.03], ['$3.95', 0.05, 0.01, 0.02], ['300', 0.08, 0.01, 0.03], ['MAY', 0.12, 0.01, 0.02], ['UNCANNY X-MEN', 0.03, 0.25, 0.08], ['1993', 0.15, 0.5, 0.02], ['75960', 0.93, 0.05, 0.02]]);
    expect(cornerIssueNumbers(box).map((n) => n.key)).toEqual(['300']);
    expect(cornerIssueNumbers(lines([['12', 0.05, 0.01, 0.02], ['3', 0.08, 0.01, 0.03]])).map((n) => n.key)).toEqual(['12', '3']);
    // one bare number is the issue where the box's price was read beside it, not where it may be that price, its ¢
    // lost, the issue unread (h318: `12` named issue #12 the best match)
    expect(cornerIssueNumbers(lines([['12', 0.05, 0.01, 0.02], ['MAY', 0.12, 0.01, 0.02]]))).toEqual([]);
    expect(cornerIssueNumbers(lines([['15c', 0.05, 0.01, 0.02], ['117', 0.08, 0.01, 0.03]])).map((n) => n.key)).toEqual(['117']);
    expect(cornerIssueNumbers(lines([['12¢', 0.05, 0.01, 0.02], ['7', 0.08, 0.01, 0.03]])).map((n) => n.key)).toEqual(['7']);
    expect(cornerIssueNumbers(lines([['$1.25 US', 0.05, 0.01, 0.02], ['7', 0.08, 0.01, 0.03]])).map((n) => n.key)).toEqual(['7']);
    // a word that ends in c or p is no price
    expect(cornerIssueNumbers(lines([['MARVEL COMIC', 0.02, 0.01, 0.02], ['7', 0.08, 0.01, 0.03]]))).toEqual([]);
    const names = comicNames(readCardText(lines([['THE AMAZING SPIDER-MAN', 0.05, 0.1, 0.08], ['MARVEL', 0.02, 0.02, 0.04]])).names);
    expect(names.map((n) => n.norm)).toEqual(['theamazingspiderman', 'amazingspiderman']);
    expect(comicNames(readCardText(lines([['SANDMAN', 0.05, 0.1, 0.08]])).names).map((n) => n.text)).toEqual(['SANDMAN', 'The SANDMAN']);
    // the recogniser's spaces dropped: THEAVENGERS is AVENGERS too (h136's THE AVENGERS #1, 1963)
    expect(comicNames(readCardText(lines([['THEAVENGERS', 0.05, 0.1, 0.08]])).names).map((n) => n.text)).toEqual(['THEAVENGERS', 'AVENGERS']);
    // but THEMIS is no "The MIS" (h143): a glued The leaves five letters at least
    expect(comicNames(readCardText(lines([['THEMIS', 0.05, 0.1, 0.08]])).names).map((n) => n.text)).toEqual(['THEMIS', 'The THEMIS']);
    // a logo alone is still read where nothing else was
    expect(comicNames(readCardText(lines([['MARVEL', 0.05, 0.1, 0.08]])).names).map((n) => n.norm)).toEqual(['marvel', 'themarvel']);
  });
});

describe('numberKey and normalizeName', () => {
  it('compares printed and catalog numbers', () => {
    expect(numberKey('097')).toBe(numberKey('97'));
    expect(numberKey('SWSH001')).toBe('SWSH1');
    expect(numberKey('tg05')).toBe('TG5');
    expect(numberKey('101a')).toBe('101A');
    expect(numberKey('1★')).toBe('1★');
  });

  it('drops accents, case, spaces and punctuation', () => {
    expect(normalizeName('Flabébé')).toBe('flabebe');
    expect(normalizeName('Pokémon-V')).toBe('pokemonv');
    expect(normalizeName('Nidoran ♀')).toBe(normalizeName('Nidoran♀'));
    expect(normalizeName('Nidoran ♀')).not.toBe(normalizeName('Nidoran ♂'));
  });
});
