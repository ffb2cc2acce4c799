/**
 * What the text read from an upright card says about its identity: the collector number and set
 * total, promo and print codes, the set code and language of an MTG card, the copyright year, the
 * regulation mark, the HP, and which lines may be the name. Pure functions over OCR lines, so the
 * rules are tested on the strings the OCR really returns (docs/recognition.md "Reading the card").
 *
 * OCR confusions are undone only inside a pattern that already looks like a number (`O97/163`,
 * `SWSH2O4`), never across free text, so a name is never turned into digits.
 */

import { normalizeName, numberKey } from '../../catalog/card-keys.ts';
import { editDistance } from '../../util/edit-distance.ts';

export { normalizeName, numberKey };

export interface CardTextLine {
  text: string;
  /** Mean character probability, 0–1. */
  prob: number;
  /** The line's box on the upright card, as shares of its width and height (0–1). */
  box: { x0: number; y0: number; x1: number; y1: number };
  /** The species name the line most likely shows where it shows none as read (vision/recognition/name-lexicon.ts): the line with it put in, and the name. */
  spotted?: { text: string; word: string; outside: number };
}

export interface CollectorNumber {
  /** As printed, confusions undone: `097`, `TG05`, `SWSH294`. */
  number: string;
  /** The set total as printed (`163`, `TG30`), or null for a lone number or promo code. */
  total: string | null;
  /** {@link numberKey} of `number`, for comparing with a catalog's numbers. */
  key: string;
  raw: string;
  prob: number;
  /**
   * How it was found: `fraction` (n/t), `promo` (a promo code alone), `lone` (a lone number in the
   * bottom band), `hash` (`#50`, `No. 50`: sport checklists; also a Pokédex number on Japanese
   * cards), `run` (a run of digits in the bottom band, the slash lost: `092196` for `092/196`; one
   * of its splits, which counts only where its total is the candidate's too).
   */
  form: 'fraction' | 'promo' | 'lone' | 'hash' | 'run';
}

/**
 * The name a card's text gives when no catalog card matched (`/card_ocr_id`): the likeliest name
 * line, when it sits where names are set large (a line low in the rules text or at the foot,
 * small, is not one) and is not the credit, copyright or stage furniture every card prints. Slabs
 * were named "抵抗力" (the resistance label), "lllus.Yukiko Baba" and "2004 Pokemon/Nintendo/…".
 */
export function readName(names: readonly NameCandidate[], language: string | null = null): string | null {
  // the words only one game prints (its copyright line, its weakness and resistance lines), an
  // illustrator's credit as read (Illus., lllus.), a stage line (1進化), a Chinese retreat label
  const furniture = [...Object.values(GAME_WORDS).flat(), 'llus', 'creatures', 'wizards', '進化', '进化', '撤退'];
  // The recogniser is a Chinese model: on a Japanese card it reads katakana as Han look-alikes
  // (カイオーガ as 才一力, ラプラスVMAX as 之之VAX), and Hangul not at all. A Japanese card's name with no
  // kana, or a Korean one's with no Hangul, is not what the card prints: no name rather than that.
  const script = language === 'ja' ? /[\u3040-\u30ff]/u : language === 'ko' ? /[\uac00-\ud7af]/u : null;
  const found = names.find((n) => n.score >= 0.25 && !furniture.some((w) => lettersOnly(n.text).includes(w) || n.text.includes(w)) && (!script || script.test(n.text)));
  return found?.text ?? null;
}

export interface NameCandidate {
  text: string;
  /** {@link normalizeName} of the text. */
  norm: string;
  prob: number;
  /** Why it may be the name: its band and size; higher is likelier. */
  score: number;
  /** The English name a localized species name stands for (`Khélocrok` → `Chewtle`), added before identification. */
  english?: { text: string; norm: string };
  /** Whether {@link english} is the name spotted in the line ({@link spotted}), not the line as read. */
  englishSpotted?: true;
  /** A top-band line's {@link CardTextLine.spotted}: what the name may be where the line as read names no species. */
  spotted?: { text: string; word: string; outside: number };
}

export interface CardTextClues {
  numbers: CollectorNumber[];
  /** Yu-Gi-Oh! print codes (`LOB-EN001`), upper-case. */
  printCodes: string[];
  /**
   * Set codes printed on the card: beside a language code on MTG cards (`DOM • EN` → `DOM`), and
   * before the collector number on Pokémon cards since Scarlet & Violet (`G SVI FR 194/198` → `SVI`).
   */
  setCodes: string[];
  /** The copyright year (`©2021 Pokémon`), as a string. */
  year: string | null;
  /** Pokémon's regulation mark (D, E, F, G, H, I …). */
  regulationMark: string | null;
  hp: number | null;
  /** The resistance printed beside the weakness, −20 or −30 (as 20 or 30): the printing's era; null when not read, or read both ways. */
  resistance: 20 | 30 | null;
  /**
   * What kind of card the top band says it is: a Pokémon (its stage line, its HP), a trainer (its
   * banner: `TRAINER`, `DRESSEUR`, …) or an energy; null when it says nothing or both.
   */
  kind: 'pokemon' | 'trainer' | 'energy' | null;
  /** The illustrator credit after `Illus.` in the bottom band, folded ({@link normalizeName}); null when not read. */
  artist: string | null;
  names: NameCandidate[];
  /** Comic issue numbers with more than digits (`#654.1`, `#-1`, `#1/2`, `#12A`), which only comics read (`comicNumbers`). */
  issueNumbers?: CollectorNumber[];
  /** An ISO 639-1 code voted by the card's furniture words, or null. */
  language: string | null;
  /** The game the card's printed furniture names (`pokemon`, `mtg`, `yugioh`: a catalog kind), or an HP read says (`pokemon`), or null. */
  game: string | null;
  /** Every line's text joined, in reading order. */
  fullText: string;
}

/** Digit look-alikes the recogniser returns inside numbers. */
const DIGIT_LIKE: Record<string, string> = { O: '0', o: '0', D: '0', Q: '0', I: '1', l: '1', '|': '1', i: '1', '!': '1', S: '5', s: '5', B: '8', Z: '2', z: '2', G: '6', g: '9' };
const D = '[0-9OoDQIl|i!SsBZzGg]';

/** `s` as digits; unless `loose`, a token with more look-alikes than digits is a word, not a number. */
function digits(s: string, loose = false): string | null {
  let real = 0;
  let out = '';
  for (const ch of s) {
    if (ch >= '0' && ch <= '9') {
      real++;
      out += ch;
    } else if (DIGIT_LIKE[ch]) out += DIGIT_LIKE[ch];
    else return null;
  }
  return loose || real * 2 >= out.length ? out : null;
}

// a letter may follow (`TG08G`: the rarity mark run into the code), a digit may not
const PROMO = /\b(SWSH|HGSS|SM|XY|BW|DP|TG|GG)\s?-?\s?([0-9OoDQIl|]{2,3})(?![0-9])/g;
/**
 * A Scarlet & Violet black star promo: `SVP EN 033`, the language code often read as one letter
 * (`SVPH033`). The catalogs number these cards `33` in the set PR-SV, not `SVP033`.
 */
const SV_PROMO = /\bSVP\s?(?:EN|FR|DE|IT|ES|PT|[A-Z])?\s?([0-9OoDQIl|]{2,3})(?![0-9])/g;
const SV_PROMO_SET = 'PR-SV';
// "sWSH294", "SW5H131": the recogniser takes an S of a promo code for a small one or a 5 now and then.
const PROMO_LOWER_S = /\b[sS5]W[sS5]H(?=\s?[0-9])/g;
/**
 * A number printed padded (a leading 0) is as wide as its total (`094/165`): one shorter (`09/165`
 * read on Gengar 094/165) lost a digit, and is no card's number.
 */
export function lostDigit(num: string, total: string): boolean {
  return num.startsWith('0') && num.length < total.length;
}
/**
 * A fraction glued to what stands before it: "GSVIR194/198", "s120067/172RR", "3060/142" (the set
 * code, regulation mark or a border mark run into the number). Numbers are padded to the total's
 * width, so the digits just before the slash, as many as the total has, are the number.
 */
const GLUED_FRACTION = /(?<=[A-Za-z0-9])(?<![0-9])([0-9]{2,3})\s?\/\s?([0-9]{2,3})(?![0-9])|(?<![0-9])([0-9]{4,6})\s?\/\s?([0-9]{2,3})(?![0-9])/g;
/**
 * A three-digit number over a total with one more digit after it (`086/1981`: a mark printed after
 * the total read as a digit). Numbers are padded to the total's width, so the total is three digits.
 */
const PADDED_FRACTION_THEN_DIGIT = /(?<![0-9])([0-9]{3})\s?\/\s?([0-9]{3})[0-9](?![0-9])/g;
const FRACTION = new RegExp(`(?<![A-Za-z0-9])([A-Z]{0,4})\\s?(${D}{1,3})\\s?/\\s?([A-Z]{0,4})\\s?(${D}{1,3})(?![0-9])`, 'g');
const PRINT_CODE = new RegExp(`\\b([A-Z0-9]{2,4})\\s?-\\s?([A-Z]{2})?(${D}{3})\\b`, 'g');
/**
 * The Scarlet & Violet collector line: regulation mark, set code, language, number, often run
 * together by the recogniser (`GSVIR194/198`, `GPARR`, `PALR052/193`, `OBFFR`). Before the number,
 * the small language code is often read as one letter, any letter (`GSVIH086/198`: FR read as H);
 * at a line's end only the codes themselves count (`GAME FREAK` is no set REA).
 */
const PTCG_SET_LINE = /(?<![A-Za-z])([D-I])?\s?([A-Z]{3})\s?(?:(?:FR|EN|DE|IT|ES|PT|JP|R|N)?(?=\s?[0-9]{2,3}\s?\/|\s*$)|[A-Z](?=\s?[0-9]{2,3}\s?\/))/g;
/** The language codes Magic's set line and Yu-Gi-Oh!'s print codes carry, as ISO 639-1. */
const PRINTED_LANGUAGE: Readonly<Record<string, string>> = { EN: 'en', FR: 'fr', DE: 'de', ES: 'es', SP: 'es', IT: 'it', PT: 'pt', JA: 'ja', JP: 'ja', KO: 'ko', KR: 'ko', RU: 'ru', ZHS: 'zh', ZHT: 'zh', CS: 'zh', CT: 'zh' };
const MTG_SET = /\b([A-Z0-9]{3,5})\s*[•·*.\-+]\s*(EN|FR|DE|ES|IT|PT|JA|JP|KO|RU|ZHS|ZHT|CS|CT)\b/g;
/** The same at a bottom line's start with the artist's name run into the language code (`GVL·ENDIEU`, `ELD.ENLSOETCAAA`, h183). */
const MTG_SET_GLUED = /^([A-Z0-9]{3,5})\s*[•·*.\-+]\s*(EN|FR|DE|ES|IT|PT|JA|JP|KO|RU)(?=[A-Z]{2})/;
// © is often read as 0, O, @, C or (C): the year must start the token and be followed by a non-digit.
const YEAR = /(?:^|[\s(])(?:©|@|\(c\)|\(C\)|0|O|C)\s?((?:19[89]|20[0-4])\d)(?![0-9])/;
// "2022Pokemor/Nintendo": the © lost, the year still runs into the owner's name.
const YEAR_BEFORE_OWNER = /(?:^|[^0-9])((?:19[89]|20[0-4])\d)\s?(?:P[o0c][kc]|Nin|Wiz|Kon)/;
const HP = /\b(?:HP|PV|KP|PS)\s?([0-9OoIl]{2,3})\b|\b([0-9]{2,3})\s?(?:HP|PV|KP|PS)\b/i;

/** The furniture words that name a card's language (Pokémon and MTG); five letters at least, since they are looked for inside run-together text. */
const LANGUAGE_WORDS: Record<string, readonly string[]> = {
  en: ['weakness', 'resistance', 'retreat', 'ability', 'creature', 'sorcery', 'enchantment', 'artifact', 'evolves', 'illus'],
  fr: ['faiblesse', 'resistance', 'retraite', 'talent', 'defaussez', 'adversaire', 'creature', 'ephemere', 'rituel', 'enchantement', 'dresseur', 'niveau', 'regle', 'lancez', 'votre'],
  de: ['schwache', 'ruckzug', 'fahigkeit', 'kreatur', 'spontanzauber', 'hexerei', 'verzauberung', 'artefakt', 'entwickelt', 'gegners', 'deines'],
  es: ['debilidad', 'resistencia', 'retirada', 'habilidad', 'criatura', 'conjuro', 'encantamiento', 'artefacto', 'entrenador', 'evoluciona'],
  it: ['debolezza', 'resistenza', 'ritirata', 'abilita', 'creatura', 'stregoneria', 'incantesimo', 'artefatto', 'allenatore', 'avversario'],
  pt: ['fraqueza', 'resistencia', 'recuo', 'habilidade', 'criatura', 'feitico', 'encantamento', 'artefato', 'treinador', 'oponente'],
};

/** Words only Chinese cards print (either script), as the recogniser reads them: retreat, stage, Pokémon, trainer, "of", "card". */
const CHINESE_WORDS = /撤|阶|階|宝可梦|寶可夢|训练家|訓練家|的|张|張|对手|對手/g;
/** Words only Japanese cards print, or kana read as Han look-alikes: 枚 (cards), 相手, 自分, ルール (儿一儿, N一N). */
const JAPANESE_WORDS = /枚|相手|自分|[儿ルN][一ー-][儿ルNU]/g;

/**
 * Words only one game prints: its copyright line (`©2022 Pokémon/Nintendo/Creatures/GAME FREAK`,
 * `Wizards of the Coast`, `KONAMI`) and Pokémon's weakness and retreat lines in each language
 * (letters only, looked for inside run-together text; the Japanese ones as printed). A card of one
 * game is never another game's card, whatever its number and total say.
 */
const GAME_WORDS: Record<string, readonly string[]> = {
  pokemon: ['pokemon', 'nintendo', 'gamefreak', 'weakness', 'retreat', 'faiblesse', 'retraite', 'schwache', 'ruckzug', 'debilidad', 'retirada', 'debolezza', 'ritirata', 'fraqueza', '抵抗力', '弱点', 'にげる'],
  mtg: ['wizardsofthecoast'],
  yugioh: ['konami'],
};

/**
 * Top-band lines that say a card is a Pokémon (its stage), a trainer or an energy, folded; a
 * misread letter is allowed in those of five letters or more (`DRESSEIR`, `NIVEAUI`, `BASG`).
 */
const KIND_WORDS: Record<'pokemon' | 'trainer' | 'energy', readonly string[]> = {
  pokemon: ['base', 'basic', 'basis', 'basico', 'niveau1', 'niveau2', 'stage1', 'stage2', 'phase1', 'phase2', 'fase1', 'fase2'],
  trainer: ['trainer', 'trainers', 'dresseur', 'entrenador', 'allenatore', 'treinador', 'supporter', 'supporteur', 'objet', 'item', 'stade', 'stadium', 'outil', 'pokemontool'],
  energy: ['energy', 'energie', 'energia'],
};
/**
 * The illustrator credit: `Illus.` as the recogniser reads it (`llus.`, `Mlus.`, `lys.`, `lus `,
 * and `lu` run into the name: `luAyako Yoshida`), then the name.
 */
const ILLUS = /^[^A-Za-z0-9]*(?:[A-Za-z|1!]{0,3}[uy]s[.,:]?\s*|[Il|1]?u(?=[A-Z0-9]))([A-Za-z0-9].{3,})$/;
/**
 * A run of digits in the bottom band, the slash between number and total lost (`092196`), or read
 * as a digit between three and three (`1537197` for `153/197`; `0383365` on a 038/165, its total
 * misread too: a thin slash at small sizes reads as a 7, a 1 or another digit).
 */
const DIGIT_RUN = /(?<![0-9/])([0-9]{4,7})(?![0-9/])/g;
/** HP glued to the end of a name line (`Pondralugon300`, `Ethernatos Radieuxw170`). */
const NAME_THEN_HP = /^(.*?[A-Za-zÀ-ÿ])\s?([A-Za-z]|PV|HP)?[\s\-~=.,:@*#°®©]?([0-9]{2,4})$/;
/** What may stand between a name and the HP glued to it (`CalyrexVx-320`, `Vrombotor@280`: the HP mark or type symbol misread), left off the name. */
const TRAILING_GLUE = /[\s\-~=.,:@*#°®©]+$/;
/**
 * The resistance on a line of its own in the bottom band: `-20`, `-30`, after the word or the type
 * symbol as the recogniser reads them at small sizes (`Mta-30`, `Resistance-30`, `6-30`, `每-30`).
 * An attack's damage prints its minus after the digits (`120-`), never before.
 */
const RESISTANCE = /^(?:[^0-9]{0,12}|[0-9])\s?[-–—−－~]\s?([23]0)$/u;
const hpLike = (v: number) => v >= 30 && v <= 400 && v % 10 === 0;
/**
 * The HP in a run of digits read where it is printed: two or three digits as they are; four are
 * the HP and the type symbol after it read as a digit (`2100` on a 210 HP card), or, when those
 * three are no HP, the HP mark before it read as one (`2320` on a 320 HP card).
 */
function hpOfRun(run: string): number | null {
  if (run.length <= 3) return hpLike(Number(run)) ? Number(run) : null;
  if (run.length !== 4) return null;
  for (const v of [Number(run.slice(0, 3)), Number(run.slice(1))]) if (hpLike(v)) return v;
  return null;
}

/** Lines that name the card's kind or stage, never its name. */
/**
 * Sport-card makers' and their lines' logos, printed large on a card's front (`Topps` over the photo, `PRIZM` at its
 * foot): a maker is no player (h316: `/card_ocr_id` named a drawn Acuña card "Topps", his name read beside it, and the
 * logo took one of the name lines `/sport_id` searches). Whole lines only: `TOPPS SERIES 1` is a set line.
 */
const CARD_MAKERS = ['topps', 'toppschrome', 'toppsnow', 'bowman', 'bowmanchrome', 'panini', 'prizm', 'paniniprizm', 'donruss', 'donrussoptic', 'upperdeck', 'fleer', 'skybox', 'stadiumclub'];
const NOT_A_NAME = new Set([...Object.values(KIND_WORDS).flat(), ...CARD_MAKERS, 'pokemon', 'hp', 'pv', 'kp', 'ps', 'vmax', 'vstar', 'ex', 'gx', 'v']);

/**
 * A comic's cover date: the month named, then the year in full or in two digits, with the day or
 * month number before it as older covers print it (`DEC 2018`, `DEC 12/93`, `JAN 1/07`, `MAY '84`).
 * Two-digit years from 30 are the 1900s. Its `12/93` is no issue number (the issue is `#323`).
 */
const COVER_DATE = /\b(?:JAN(?:UARY)?|FEB(?:RUARY)?|MAR(?:CH)?|APR(?:IL)?|MAY|JUNE?|JULY?|AUG(?:UST)?|SEPT?(?:EMBER)?|OCT(?:OBER)?|NOV(?:EMBER)?|DEC(?:EMBER)?)(?![A-Z])\.?\s?(?:(?:[0-9]{1,2}\s?\/\s?|')([0-9]{2})|((?:19|20)[0-9]{2}))(?![0-9])/i;

/**
 * The year a comic's cover date gives ({@link COVER_DATE}), or null. A month's name only, not a
 * word it starts (`MARVEL 2099`), and two digits only after a day or month number or an
 * apostrophe (`JUNE 30` is a day).
 */
export function coverDateYear(lines: readonly CardTextLine[]): string | null {
  for (const line of lines) {
    const m = COVER_DATE.exec(line.text);
    if (!m) continue;
    return m[2] ?? `${Number(m[1]) >= 30 ? 19 : 20}${m[1]}`;
  }
  return null;
}

export function readCardText(lines: readonly CardTextLine[]): CardTextClues {
  const numbers: CollectorNumber[] = [];
  const printCodes = new Set<string>();
  const printedLanguages: string[] = [];
  const setCodes = new Set<string>();
  let year: string | null = null;
  let regulationMark: string | null = null;
  let hp: number | null = null;
  const resistances = new Set<20 | 30>();
  let artist: string | null = null;
  const kinds = new Set<'pokemon' | 'trainer' | 'energy'>();
  const names: NameCandidate[] = [];
  const issueNumbers: CollectorNumber[] = [];
  const votes = new Map<string, number>();
  const seen = new Map<string, number>();
  const addNumber = (n: CollectorNumber) => {
    const id = `${n.key}/${n.total ?? ''}`;
    const at = seen.get(id);
    // a split of a digit run counts only at a set's exact total: the same number read as a fraction (`179/163` after `1797163`) is the surer form
    if (at !== undefined) {
      if (numbers[at]!.form === 'run' && n.form !== 'run') numbers[at] = n;
      return;
    }
    seen.set(id, numbers.length);
    numbers.push(n);
  };

  for (const line of lines) {
    const text = line.text.trim().replace(PROMO_LOWER_S, 'SWSH');
    if (!text) continue;

    for (const m of text.matchAll(FRACTION)) {
      const [raw, pre0 = '', n0 = '', tpre = '', t = ''] = m;
      let pre = pre0;
      let n = n0;
      // "O97/163": a zero read as O went to the prefix (numbers are padded to three digits).
      if (/[OQ]$/.test(pre) && n.length < 3) {
        n = `0${n}`;
        pre = pre.slice(0, -1);
      }
      const num = digits(n);
      const tot = digits(t);
      if (num === null || tot === null) continue;
      let prefix = '';
      if (pre && tpre && pre === tpre) prefix = pre;
      else if (pre && tpre && pre.endsWith(tpre)) {
        // "DTG25/TG30": the regulation mark run into a prefixed number
        prefix = tpre;
        if (pre.length === tpre.length + 1 && /[D-I]/.test(pre[0]!)) regulationMark ??= pre[0]!;
      }
      else if (pre.length === 1 && !tpre && /[D-I]/.test(pre)) regulationMark ??= pre; // "F120/195": the mark glued to the number
      else if (pre && !tpre && pre.length > 1) prefix = /(TG|GG|SV|RC|SH|SL|AR|RT|H)$/.exec(pre)?.[1] ?? '';
      // A set total is never smaller than 1 card; "0" totals are misreads of other digits.
      if (Number(tot) === 0) continue;
      if (!prefix && lostDigit(num, tot)) continue;
      const number = prefix + num;
      addNumber({ number, total: (tpre === prefix ? tpre : '') + tot, key: numberKey(number), raw, prob: line.prob, form: 'fraction' });
    }
    for (const m of text.matchAll(GLUED_FRACTION)) {
      const raw = m[0];
      const run = m[1] ?? m[3] ?? '';
      const t = m[2] ?? m[4] ?? '';
      const num = run.length > t.length ? run.slice(-t.length) : run;
      if (Number(t) === 0 || Number(num) === 0 || lostDigit(num, t)) continue;
      addNumber({ number: num, total: t, key: numberKey(num), raw, prob: line.prob * 0.9, form: 'fraction' });
    }
    for (const m of text.matchAll(PADDED_FRACTION_THEN_DIGIT)) {
      if (Number(m[2]) === 0 || Number(m[1]) === 0) continue;
      addNumber({ number: m[1]!, total: m[2]!, key: numberKey(m[1]!), raw: m[0], prob: line.prob * 0.9, form: 'fraction' });
    }
    for (const m of text.matchAll(PROMO)) {
      const num = digits(m[2]!);
      if (num === null) continue;
      // "TG05/TG30" was taken as a fraction already.
      if (numbers.some((x) => x.raw.includes(m[0].replace(/\s|-/g, '')))) continue;
      const number = m[1]! + num;
      addNumber({ number, total: null, key: numberKey(number), raw: m[0], prob: line.prob, form: 'promo' });
      // `TG08O`: a letter after two digits may be a mark run into the code rather than a 0
      const two = /^[0-9]{2}[OoDQIl|]$/.test(m[2]!) ? m[1]! + m[2]!.slice(0, 2) : null;
      if (two) addNumber({ number: two, total: null, key: numberKey(two), raw: m[0], prob: line.prob * 0.9, form: 'promo' });
    }
    for (const m of text.matchAll(SV_PROMO)) {
      const num = digits(m[1]!);
      if (num === null || Number(num) === 0) continue;
      addNumber({ number: num, total: null, key: numberKey(num), raw: m[0], prob: line.prob, form: 'promo' });
      setCodes.add(SV_PROMO_SET);
    }
    for (const m of text.matchAll(PRINT_CODE)) {
      // the set prefix and region letters already say this is a code
      const num = digits(m[3]!, true);
      if (num === null || !/[A-Z]/.test(m[1]!)) continue;
      const code = `${m[1]}-${m[2] ?? ''}${num}`;
      printCodes.add(code);
      if (m[2] && PRINTED_LANGUAGE[m[2]]) printedLanguages.push(PRINTED_LANGUAGE[m[2]]!);
      // a Yu-Gi-Oh! print code is the printing's collector number (set, region, number), as sure as a promo code
      addNumber({ number: code, total: null, key: numberKey(code), raw: m[0], prob: line.prob, form: 'promo' });
    }
    for (const m of text.matchAll(MTG_SET)) {
      setCodes.add(m[1]!);
      if (PRINTED_LANGUAGE[m[2]!]) printedLanguages.push(PRINTED_LANGUAGE[m[2]!]!);
    }
    const glued = line.box.y0 > 0.85 ? MTG_SET_GLUED.exec(text.trim()) : null;
    if (glued && !text.match(MTG_SET)) {
      setCodes.add(glued[1]!);
      printedLanguages.push(PRINTED_LANGUAGE[glued[2]!]!);
    }
    if (line.box.y0 > 0.85) {
      for (const m of text.matchAll(PTCG_SET_LINE)) {
        setCodes.add(m[2]!);
        if (m[1] && regulationMark === null) regulationMark = m[1];
      }
    }

    const y = YEAR.exec(text) ?? YEAR_BEFORE_OWNER.exec(text);
    if (y && year === null) year = y[1]!;
    const h = HP.exec(text);
    if (h && hp === null && line.box.y0 < 0.2) {
      const v = Number(digits(h[1] ?? h[2]!) ?? NaN);
      if (v >= 10 && v <= 400) hp = v;
    }
    if (line.box.y0 > 0.85 && regulationMark === null && /^[D-I]$/.test(text)) regulationMark = text;
    const resist = line.box.y0 > 0.8 ? RESISTANCE.exec(text) : null;
    if (resist) resistances.add(Number(resist[1]) as 20 | 30);
    // sport checklists number their cards `#50` / `No. 50` (front or back), with a set's letters as printed: Update's
    // `#US250`, Traded's `#855T`, Bowman's `#BCP-25` (digits alone named no such card, h224)
    for (const m of text.matchAll(/(?:#|\bNo\.?\s?)\s?([A-Z]{0,4}-?\d{1,4}[A-Z]?)(?![A-Za-z0-9])/g)) addNumber({ number: m[1]!, total: null, key: numberKey(m[1]!), raw: m[0], prob: line.prob, form: 'hash' });
    // a comic's issue as printed: a point issue (`#654.1`), `#-1`, `#1/2`, a variant letter (`#12A`); comics take these
    // in place of the digits alone (COMICS' clues)
    for (const m of text.matchAll(ISSUE_NUMBER)) issueNumbers.push({ number: m[1]!, total: null, key: numberKey(m[1]!), raw: m[0], prob: line.prob, form: 'hash' });
    if (line.box.y0 > 0.88) {
      const lone = /^(?:[A-Z]\s)?(\d{3,4})(?:\s?[CURMSLT★])?$/.exec(text);
      if (lone) addNumber({ number: lone[1]!, total: null, key: numberKey(lone[1]!), raw: text, prob: line.prob, form: 'lone' });
    }
    if (line.box.y0 > 0.85 && !text.includes('/')) {
      for (const m of text.matchAll(DIGIT_RUN)) {
        const run = m[1]!;
        // a copyright year is no number (`02021`: the © read as a 0)
        if (/^[0-9]?(19[89]|20[0-4])[0-9]$/.test(run)) continue;
        for (const cut of run.length === 7 ? [3] : run.length === 6 ? [3] : run.length === 5 ? [2, 3] : [1, 2]) {
          const num = run.slice(0, cut);
          const tot = run.slice(run.length === 7 ? cut + 1 : cut);
          if (Number(num) === 0 || tot.startsWith('0') || Number(tot) < 10) continue;
          addNumber({ number: num, total: tot, key: numberKey(num), raw: run, prob: line.prob * 0.5, form: 'run' });
        }
      }
    }
    if (line.box.y0 > 0.8 && artist === null) {
      const credit = ILLUS.exec(text);
      const norm = credit ? normalizeName(credit[1]!) : '';
      if (norm.replace(/[0-9]/g, '').length >= 4) artist = norm;
    }
    if (line.box.y0 < 0.15) {
      const norm = normalizeName(text);
      for (const [kind, words] of Object.entries(KIND_WORDS) as [keyof typeof KIND_WORDS, readonly string[]][]) {
        if (words.some((w) => norm === w || (w.length >= 6 && Math.abs(norm.length - w.length) <= 1 && editDistance(norm, w) <= 1))) kinds.add(kind);
      }
    }

    // The recogniser often drops spaces ("Defaussezles"), so furniture words are looked for inside the letters.
    const letters = lettersOnly(text);
    for (const [lang, words] of Object.entries(LANGUAGE_WORDS)) for (const w of words) if (letters.includes(w)) votes.set(lang, (votes.get(lang) ?? 0) + 1);

    // HP glued to the name: the letter before it may be the name's last (`Pondralugon300`) or a
    // misread of the HP mark (`Radieuxw170`), so both readings are name lines
    let nameTexts = [text];
    if (line.box.y0 < 0.15) {
      const glued = NAME_THEN_HP.exec(text);
      const gluedHp = glued ? hpOfRun(glued[3]!) : null;
      if (glued && gluedHp !== null) {
        nameTexts = [...new Set([text.slice(0, text.length - glued[3]!.length).replace(TRAILING_GLUE, ''), glued[1]!])];
        hp ??= gluedHp;
      }
    }
    const furniture = Object.values(LANGUAGE_WORDS).some((words) => words.some((w) => letters.includes(w)));
    for (const nameText of nameTexts) {
      const norm = normalizeName(nameText);
      const nameLetters = norm.replace(/[0-9]/g, '').length;
      // a line that starts with a year is a set line (`2022 TOPPS SERIES 1`), not a name (h103: /card_ocr_id named a sport card so)
      if (nameLetters >= 3 && !furniture && !NOT_A_NAME.has(norm) && nameLetters >= norm.length * 0.6 && !/^(?:19|20)[0-9]{2}[a-z]/.test(norm)) {
        const height = line.box.y1 - line.box.y0;
        // Names sit in the top band on trading cards (at the foot on many sport cards) and are set larger than the rules text.
        const band = line.box.y0 < 0.15 ? 1 : line.box.y0 > 0.8 ? 0.5 : 0.15;
        names.push({ text: nameText, norm, prob: line.prob, score: band * Math.min(1, height / 0.05) * line.prob, ...(line.spotted && band === 1 ? { spotted: line.spotted } : {}) });
      }
    }
  }

  if (hp === null) {
    // The HP printed alone in the top right ("230" beside the name), a letter or sign of the
    // furniture read beside it ("P60", "y100"), the type symbol after it or the HP mark before it
    // read as a digit ("2106", "2320": hpOfRun).
    for (const line of lines) {
      if (line.box.y0 >= 0.12 || line.box.x0 <= 0.5) continue;
      const t = line.text.trim();
      const m = /^[^0-9]{0,2}([0-9]{2,4})[^0-9]{0,2}$/.exec(t);
      const v = m ? hpOfRun(m[1]!) : null;
      if (v !== null) {
        hp = v;
        break;
      }
    }
  }
  if (hp !== null) kinds.add('pokemon');

  names.sort((a, b) => b.score - a.score);
  let language: string | null = null;
  let best = 1; // two furniture words at least
  for (const [lang, n] of votes) {
    if (n > best) {
      best = n;
      language = lang;
    }
  }
  // no furniture words: the language a Magic card's set line (`WWK·DE`) or a Yu-Gi-Oh! code (`LOB-DE001`) prints,
  // where they agree (h119: a German Stoneforge Mystic, its language null; rule s41 (b))
  if (!language && printedLanguages.length && printedLanguages.every((l) => l === printedLanguages[0])) language = printedLanguages[0]!;
  // Kana is Japanese only. But the recogniser (a Chinese model) reads almost no kana: カイオーガ
  // comes out as 才一力, ルール as 儿一儿. So Han characters alone are Chinese only where a word
  // only Chinese cards print is read (撤退, the retreat label every Chinese Pokémon card's bottom
  // band carries; 阶 of 1阶进化; 宝可梦; 的), and Japanese otherwise, Japanese words (枚, 相手,
  // 自分, a rule box's ルール read as look-alikes) deciding where both are read. A lone Han
  // character is the recogniser reading a symbol or a smudge on a Latin card (2 French cards of
  // 190 read so): three at least.
  // an MTG mana cost in the top band's right (`3*米`, `2号`: the sun of white mana read as a Han character, h183) is
  // no word of any language
  const manaCost = (l: CardTextLine) => l.box.y0 < 0.12 && l.box.x0 > 0.5 && [...l.text.trim()].length <= 4 && /[0-9]/.test(l.text);
  const all = lines
    .filter((l) => !manaCost(l))
    .map((l) => l.text)
    .join('');
  const kana = all.match(/[\u3040-\u30ff]/g)?.length ?? 0;
  const han = all.match(/[\u4e00-\u9fff]/g)?.length ?? 0;
  // ...or two within one line of the name band: a Japanese card whose name came out as 八么ex and
  // little else was taken for the English card of its number and total
  const cjkName = lines.some((l) => l.box.y0 < 0.15 && !manaCost(l) && (l.text.match(/[\u3040-\u30ff\u4e00-\u9fff]/g)?.length ?? 0) >= 2);
  // A likeliest name line of Latin letters, read plainly, outweighs Han read elsewhere: a glare streak read as
  // 中国足排 made an English card, its name, set code and number read, a Chinese one the English catalog holds none of (h108).
  const top = names[0];
  const latinName = !!top && top.score >= 0.5 && /^[\p{Script=Latin}\s'’.-]+$/u.test(top.text) && (top.text.match(/\p{Script=Latin}/gu)?.length ?? 0) >= 5;
  // kana is never glare: a Japanese card printing its name in Latin letters (Pikachu ex) stays Japanese (h116)
  if (!language && kana >= 1 && kana + han >= 3) language = 'ja';
  if (!language && !latinName && (han >= 3 || cjkName)) {
    const chinese = all.match(CHINESE_WORDS)?.length ?? 0;
    const japanese = all.match(JAPANESE_WORDS)?.length ?? 0;
    language = chinese > japanese ? 'zh' : 'ja';
  }
  const letters = lettersOnly(all);
  const gameVotes = Object.entries(GAME_WORDS).map(([g, words]) => [g, words.filter((w) => letters.includes(w) || all.includes(w)).length] as const).filter(([, n]) => n > 0);
  gameVotes.sort((a, b) => b[1] - a[1]);
  const byWords = gameVotes.length && (gameVotes.length === 1 || gameVotes[0]![1] > gameVotes[1]![1]) ? gameVotes[0]![0] : null;
  // Failing those words, an HP says Pokémon: no other game prints one, and a Japanese card's
  // `032/106 R` matched a Magic card of that number and total otherwise.
  const game = byWords ?? (hp !== null ? 'pokemon' : null);

  return {
    // a Yu-Gi-Oh! card prints no number over a total, and its eight-digit passcode with a digit lost is seven
    numbers: game === 'yugioh' ? numbers.filter((n) => !(n.form === 'run' && n.raw.length === 7)) : numbers,
    printCodes: [...printCodes],
    setCodes: [...setCodes],
    year,
    regulationMark,
    hp,
    resistance: resistances.size === 1 ? [...resistances][0]! : null,
    kind: kinds.size === 1 ? [...kinds][0]! : null,
    artist,
    names: names.slice(0, 8),
    issueNumbers,
    language,
    game,
    fullText: lines.map((l) => l.text).join('\n'),
  };
}

function lettersOnly(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '');
}

/** An issue number with more than digits after `#` or `No.`: a point part, a minus, a half or one capital. */
const ISSUE_NUMBER = /(?:#|\bNo\.?\s?)\s?(-\d{1,4}|\d{1,4}(?:\.\d{1,2}|\/2|[A-Z])(?![A-Za-z0-9]))/g;

/** Publishers' names, whose logo on a cover is no series' name (h136: `MARVEL` matched the series Marvel (2020)). */
const PUBLISHER_NAMES = new Set(['marvel', 'marvelcomics', 'dc', 'dccomics', 'image', 'imagecomics', 'darkhorse', 'darkhorsecomics', 'idw', 'idwpublishing', 'boom', 'boomstudios', 'dynamite', 'valiant', 'archie', 'archiecomics']);

/**
 * A comic's name lines as a cover prints them against its catalog's: without a leading "The" and
 * with one (Marvel's files spell a series both ways; a shop's `The Sandman` against a cover's
 * `SANDMAN`), for the two likeliest lines, each variant right after its line; a publisher's logo alone is no name where another
 * line was read (h136).
 */
export function comicNames(names: readonly NameCandidate[]): NameCandidate[] {
  const kept = names.some((n) => !PUBLISHER_NAMES.has(n.norm)) ? names.filter((n) => !PUBLISHER_NAMES.has(n.norm)) : [...names];
  const out: NameCandidate[] = [];
  // the two likeliest lines only: a cover's series is its largest text, and each variant takes a place among the
  // name lines searched and compared
  for (const [i, n] of kept.entries()) {
    out.push(n);
    if (i >= 2) continue;
    // the recogniser drops spaces (`THEAVENGERS`): "The" glued to the name is stripped too
    // (five letters at least after a glued one: THEMIS is no "The MIS", h143)
    const bare = /^the\s+(\p{L}.{2,})$/iu.exec(n.text.trim())?.[1] ?? /^the(\p{L}{5,}.*)$/iu.exec(n.text.trim())?.[1];
    const text = bare ?? `The ${n.text.trim()}`;
    out.push({ ...n, text, norm: normalizeName(text) });
  }
  return out.slice(0, 8);
}

/**
 * A comic's numbers: its issue numbers as printed in place of their digits alone (`#654.1`, not
 * `654`), then the others (h136: point issues and `#-1` were lost).
 */
export function comicNumbers(numbers: readonly CollectorNumber[], issues: readonly CollectorNumber[] = []): CollectorNumber[] {
  // the digits of an issue read whole (`#654` of `#654.1`), not another number that begins alike (`#2` beside `#25.1`, h143)
  const cut = (n: CollectorNumber) => issues.some((i) => i.raw.startsWith(n.raw) && i.raw !== n.raw && !/[0-9]/.test(i.raw[n.raw.length]!));
  return [...issues, ...numbers.filter((n) => !cut(n) && !issues.some((i) => i.key === n.key))];
}

/** A cover's price as its corner box prints it: `$3.95`, `$1.25 US`, `15c`, `12¢`, `30p`, `£1.50`, `2.99`. */
const CORNER_PRICE = /[$£€]\s?\d{1,3}(?:[.,]\d{2})?|(?<![0-9])\d{1,3}\s?[¢cCpP](?![A-Za-z0-9])|(?<![0-9])\d{1,2}[.,]\d{2}(?![0-9])/;

/**
 * The issue number a cover's corner box prints bare: Marvel's covers from the 1960s to the 1990s (and many since) set
 * the price, the issue (`300`) and the month (`MAY`) on lines of their own in the top corner, with no `#` (h316: an
 * Uncanny X-Men #300 cover read `300` and listed the series' #100–#104). A line of the cover's top fifth holding 1 to 4
 * digits alone, not a year; taken only where no issue was read after `#` or `No.` (a stray digit beside a `#13` would
 * tie another issue with it). Two such lines (a price read without its `¢`, `12`, and the issue, `3`) are both
 * taken, and their issues tie rather than one being guessed. One such line alone is taken only where the box's price
 * was read beside it (`$3.95`, `15c`): else it may be that price, its `¢` lost, and the issue not read (h318: a cover
 * reading `12` and its title named #12 the best match, `OK`, where reading no number named none).
 */
export function cornerIssueNumbers(lines: readonly CardTextLine[]): CollectorNumber[] {
  const top = lines.filter((l) => l.box.y0 < 0.2);
  const bare = top.filter((l) => /^[0-9]{1,4}$/.test(l.text.trim()) && !/^(?:19|20)[0-9]{2}$/.test(l.text.trim()) && Number(l.text.trim()) > 0);
  if (bare.length === 1 && !top.some((l) => CORNER_PRICE.test(l.text))) return [];
  return bare
    .map((l) => {
      const n = l.text.trim();
      return { number: n, total: null, key: numberKey(n), raw: n, prob: l.prob, form: 'lone' as const };
    });
}

/**
 * The line of 1 to 4 digits alone that a cover's top fifth sets as its title would be: a series titled with digits alone
 * (`1602`, `52`, `300`), its logo read where a price was read too, was taken by cornerIssueNumbers for the corner box's
 * issue (h322). A logo is set large: 4 % of the cover's height at least, and half again as tall as any other line of
 * the top fifth (the corner box's issue is set about as large as its price and month). Whether the catalog holds a
 * series of that name is the caller's to ask (withSeriesTitledByNumber).
 */
export function titleNumberLine(lines: readonly CardTextLine[]): CardTextLine | undefined {
  const top = lines.filter((l) => l.box.y0 < 0.2);
  const height = (l: CardTextLine) => l.box.y1 - l.box.y0;
  const title = top.find((l) => /^[0-9]{1,4}$/.test(l.text.trim()) && height(l) >= 0.04);
  return title && top.every((l) => l === title || height(title) >= 1.5 * height(l)) ? title : undefined;
}

/** A line that is letters only (a name part: `JULIO`, `ACUNA JR.`), no digits or signs beside them. */
const NAME_PART = /^[\p{L}][\p{L}\s'’.-]*$/u;

/**
 * A player's name set on two lines (a small first name over a large last name, as Topps Chrome,
 * Bowman and Prizm print it), or read as two fragments of one line (`RONALD` · `ACUNA JR.`): each
 * such pair of name lines, upper or left first, is a name too, ahead of its parts (h137: `JULIO` over
 * `RODRIGUEZ` named no card though the set line and number were read). Two pairs at most: each takes a
 * place among the name lines searched (a team beside a name pairs too).
 */
export function joinedNames(names: readonly NameCandidate[], lines: readonly CardTextLine[]): NameCandidate[] {
  const named = new Map(names.map((n) => [n.text, n]));
  const parts = lines.filter((l) => NAME_PART.test(l.text.trim()) && named.has(l.text.trim()));
  const joined: NameCandidate[] = [];
  for (const a of parts) {
    for (const b of parts) {
      if (a === b || joined.length >= 2) continue;
      const ha = a.box.y1 - a.box.y0;
      const hb = b.box.y1 - b.box.y0;
      const overlap = Math.min(a.box.x1, b.box.x1) - Math.max(a.box.x0, b.box.x0);
      const stacked = b.box.y0 > a.box.y0 + 0.3 * ha && b.box.y0 - a.box.y1 <= 0.6 * Math.max(ha, hb) && overlap > 0;
      const midA = (a.box.y0 + a.box.y1) / 2;
      const midB = (b.box.y0 + b.box.y1) / 2;
      const gap = b.box.x0 - a.box.x1;
      const sameRow = Math.abs(midA - midB) < 0.5 * Math.min(ha, hb) && gap > -0.01 && gap < 0.08;
      if (!stacked && !sameRow) continue;
      const na = named.get(a.text.trim())!;
      const nb = named.get(b.text.trim())!;
      const text = `${na.text} ${nb.text}`;
      joined.push({ text, norm: normalizeName(text), prob: Math.min(na.prob, nb.prob), score: na.score + nb.score });
    }
  }
  return joined;
}
