import { editDistance } from '../../util/edit-distance.ts';
import type { StoredCard, StoredSet } from '../../store/catalog-store.ts';
import { comicNames, comicNumbers, cornerIssueNumbers, coverDateYear, joinedNames, normalizeName, numberKey, titleNumberLine, type CardTextLine } from './card-text.ts';
import { TRADING_CARDS, type CardClues, type MatchRule } from './identify.ts';
import { comicsMatch, sportCardMatch, tradingCardMatch } from './match-fields.ts';

/*
 * What an identification request may ask, by family (trading cards, sport cards, comics): the catalogs each searches,
 * its options and hints, and how a hint names a game or a sport. The service (recognition-service.ts) answers them.
 */

/** The catalog kinds `/tcg_id` identifies against: `csv` is a shop's own game (`--kind csv`, docs/recognition.md), a trading card game the data projects do not cover. */
export const TCG_KINDS = ['pokemon', 'mtg', 'yugioh', 'csv'] as const;

/**
 * Whether a Pokémon catalog is among those searched: misread name lines are looked at for the species'
 * names only then (the `read` task's `names`), as only then are the names found used (names-in-english.ts).
 */
export const searchesPokemon = (catalogs: readonly { kind: string }[]): boolean => catalogs.some((c) => c.kind === 'pokemon');

/** The `/tcg_id` and `/sport_id` options (document 3 §4), all boolean, default false; echoed when given. */
export const TCG_OPTIONS = ['rotate', 'lang', 'slab_id', 'slab_grade', 'price_stats', 'analyze_all', 'include_mtg_oversized', 'include_mtg_digital', 'ignore_non_ascii'] as const;
export const SPORT_OPTIONS = ['magic_ai', 'slab_id', 'slab_grade', 'price_stats', 'analyze_all'] as const;
/** `/comics_id`'s options (document 3 §4): no `slab_grade`, which the spec lists for cards only. */
export const COMICS_OPTIONS = ['slab_id', 'price_stats', 'analyze_all'] as const;
/** Every option any identification endpoint reads. */
export const ALL_OPTIONS = [...TCG_OPTIONS, 'magic_ai'] as const;

/**
 * What differs between `/tcg_id` and `/sport_id`: the catalogs searched, the names of the object
 * and category, how a catalog card becomes a match, and which hints come back as tags.
 */
export interface Family {
  kinds: readonly string[];
  /** The object's name (`Card`, `Comics`). */
  objectName: string;
  topCategory: string;
  categoryPath: string;
  /** Name lines searched by name: a sport card's player name is often set small, at the foot. */
  nameLines: number;
  /** Whether `#50` / `No. 50` is a collector number (sport checklists), not a Pokédex number. */
  hashNumbers: boolean;
  hintTags: readonly string[];
  /** Tags the spec promises on every result of the family (sport: `Autograph`, `Foil/Holo`): an empty list when neither measured nor hinted. */
  alwaysTags?: readonly string[];
  match(kind: string, catalog: string, card: StoredCard, set: StoredSet | undefined): Record<string, unknown> & { subcategory: string | null };
  noCatalog: string;
  /** What the family's prints say beyond a card's: a comic's cover date. */
  clues?(clues: CardClues, lines: readonly CardTextLine[]): CardClues;
  /** How its best match is singled out (docs/api-decisions.md `/sport_id`, `/comics_id`). */
  rule: MatchRule;
}

export const TCG: Family = {
  kinds: TCG_KINDS,
  objectName: 'Card',
  topCategory: 'Trading Card',
  categoryPath: 'Trading Card Game',
  nameLines: 2,
  hashNumbers: false,
  // Alphabet: the client's word goes before the measured one, as a hint does (h333: echoed, `_tags` said the measured)
  hintTags: ['Side', 'Foil/Holo', 'Rotation', 'Alphabet'],
  rule: TRADING_CARDS,
  match: (kind, catalog, card, set) => ({ ...tradingCardMatch(kind, catalog, card, set) }),
  noCatalog: 'No trading-card catalog is imported on this server: import one with `loupe catalog import --kind pokemon|mtg|yugioh|csv …` (docs/recognition.md).',
};

export const SPORT: Family = {
  kinds: ['sports'],
  objectName: 'Card',
  topCategory: 'Sport Card',
  categoryPath: 'Sport Card',
  // four lines, and the two joined names (joinedNames) ahead of them
  nameLines: 6,
  hashNumbers: true,
  hintTags: ['Side', 'Foil/Holo', 'Autograph', 'Rotation', 'Alphabet'],
  // document 3 §4: "Sport results add tags Autograph, Foil/Holo, Graded"; no model here sees a signature or foil
  alwaysTags: ['Autograph', 'Foil/Holo'],
  // the player's name must agree: a set line and a number name some card of every checklist
  rule: { nameLevel: false, nameMustAgree: true, rarityRows: false },
  match: (_kind, catalog, card) => ({ ...sportCardMatch(catalog, card) }),
  // a first name over a last name, or a name read in two fragments, is one name (h137)
  clues: (clues, lines) => {
    const joined = joinedNames(clues.names, lines);
    return joined.length ? { ...clues, names: [...joined, ...clues.names].slice(0, 8) } : clues;
  },
  noCatalog: 'No sport-card catalog is imported on this server: import a checklist with `loupe catalog import --kind sports --csv F.csv` (docs/recognition.md).',
};

export const COMICS: Family = {
  kinds: ['comics'],
  objectName: 'Comics',
  topCategory: 'Comics',
  categoryPath: 'Comics',
  // four lines, and the "The" variants of the first two (comicNames)
  nameLines: 6,
  hashNumbers: true,
  hintTags: ['Side', 'Rotation', 'Alphabet'],
  // the series' name and a number: an issue, its variants listed and none guessed
  rule: { nameLevel: false, nameMustAgree: false, rarityRows: false },
  match: (_kind, catalog, card) => comicsMatch(catalog, card),
  // A cover numbers its issue `#323`; what reads as a fraction there is its date (`DEC 12/93`), which dates the issue instead.
  // Issue numbers as printed (`#654.1`, `#-1`), the series' name with and without "The", no publisher's logo as a
  // series (rule s42 (b), h136).
  // A logo set on two lines (THE AMAZING over SPIDER-MAN) is one name too, after the cover's likeliest line (h249).
  // Only a pair holding one of the two likeliest lines (the logo's), and one: a cover's blurbs and credits stack too,
  // and their pairs pushed the series' own line out of the lines searched (h256).
  clues: (clues, lines) => {
    const likeliest = clues.names.slice(0, 2).map((n) => n.text);
    const joined = joinedNames(clues.names, lines).find((j) => likeliest.some((t) => j.text.startsWith(`${t} `) || j.text.endsWith(` ${t}`)));
    const names = joined && clues.names[0] ? [clues.names[0], joined, ...clues.names.slice(1)] : clues.names;
    const numbers = comicNumbers(clues.numbers.filter((n) => n.form === 'hash' || n.form === 'lone'), clues.issueNumbers);
    // the corner box's bare issue number, where no `#` issue was read (cornerIssueNumbers, h316)
    const printed = numbers.some((n) => n.form === 'hash') ? numbers : [...numbers, ...cornerIssueNumbers(lines).filter((c) => !numbers.some((n) => n.key === c.key))];
    return { ...clues, names: comicNames(names), numbers: printed, coverYear: coverDateYear(lines) };
  },
  noCatalog: 'No comics catalog is imported on this server: import one with `loupe catalog import --kind comics --file F.json` (docs/recognition.md).',
};
export type TcgOption = (typeof ALL_OPTIONS)[number];
export type TcgOptions = Partial<Record<TcgOption, boolean>>;

/** Languages whose cards are printed in another alphabet than Latin. */
const NON_LATIN_LANGUAGES = new Set(['ja', 'zh', 'ko', 'ru', 'uk', 'bg', 'el', 'th', 'ar', 'he']);

/**
 * Whether a card's text is in the Latin alphabet: not when it reads as a language printed in another,
 * else when Latin letters are at least twice the others (a Japanese card's `HP`, `Lv.` and set code are Latin).
 */
export function latinAlphabet(text: string, language: string | null): boolean {
  if (language !== null && NON_LATIN_LANGUAGES.has(language)) return false;
  const latin = text.match(/\p{Script=Latin}/gu)?.length ?? 0;
  const other = text.match(/(?!\p{Script=Latin})\p{L}/gu)?.length ?? 0;
  return latin > 0 && latin >= 2 * other;
}

/**
 * The words of the `Alphabet` tag (`_tags.Alphabet`, measured by {@link latinAlphabet}), and so of its hint: the spec
 * shows `latin`; any other word (`japanese`) is the record's 400 naming these, as a hint of the wrong type is, for no
 * tag of ours could say it (h333).
 */
export const ALPHABETS = ['latin', 'other'] as const;

/** Whether a record's `Alphabet` hint says its card is printed in another alphabet than Latin (any case). */
export const otherAlphabetHinted = (record: Record<string, unknown>): boolean => typeof record.Alphabet === 'string' && record.Alphabet.trim().toLowerCase() === 'other';

/** Taxonomy hints a record may carry (document 3 §4); echoed, and those we read narrow the search. */
export const HINTS = ['Top Category', 'Category', 'Side', 'Alphabet', 'Subcategory', 'Foil/Holo', 'Rotation'] as const;

/** What a record of each endpoint may name as its hints: `lang` is a comic record's own (the language of its edition). */
export const recordHints = (family: Family): readonly string[] => ['set_code', ...HINTS, 'Autograph', ...(family === COMICS ? ['lang'] : [])];

/**
 * The option or hint a key was meant as: one of `names` written in another case or with other separators (`priceStats`,
 * `slab-id`, `setcode`, `top_category`), or one letter off a name of six letters or more (`price_stat`). Such a key was
 * ignored like any field the endpoints do not read, and the call charged as if it were not asked (h270: `analyzeAll`
 * read the largest card only, `slab-id` no label); grading refuses its own the same way (h266).
 */
export function meantName(key: string, names: readonly string[]): string | undefined {
  if (names.includes(key)) return undefined;
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s/]/g, '');
  const k = norm(key);
  if (!k) return undefined;
  return names.find((n) => norm(n) === k) ?? names.find((n) => norm(n).length >= 6 && editDistance(k, norm(n)) <= 1);
}

/** `meantName`'s refusal: the name to use (a hint where `hints`, the endpoint's `recordHints`, hold it), and where it goes. */
export const misspeltMessage = (field: string, meant: string, hints: readonly string[], where: string): string => `${field} is not ${hints.includes(meant) ? 'a hint' : 'an option'}: it is \`${meant}\`, ${where}.`;

const IDENTIFYING = [
  ['/tcg_id', TCG_OPTIONS, recordHints(TCG)],
  ['/sport_id', SPORT_OPTIONS, recordHints(SPORT)],
  ['/comics_id', COMICS_OPTIONS, recordHints(COMICS)],
] as const;
const IDENTIFYING_NAMES = [...new Set(IDENTIFYING.flatMap(([, options, hints]) => [...options, ...hints]))];
const IDENTIFYING_OPTIONS: readonly string[] = ALL_OPTIONS;

/**
 * Why `/card_ocr_id`, `/slab_id`, `/slab_grade`, `/detect` and `/process` refuse `key` (document 3 §4: "only `records`"),
 * or undefined: an identification endpoint's option or hint (or one written another way) asking for something. It was
 * ignored, so `price_stats: true` answered without prices as if the call had none to give (seventy-fourth session).
 * `false`, `null` and `""` ask for nothing and pass, as request builders that send every option write them.
 */
export function notTakenHere(endpoint: string, field: string, key: string, value: unknown, inRecord = false): string | undefined {
  if (value === false || value === null || value === undefined || value === '') return undefined;
  // a record's other fields are the shop's own (`set_code`, `lang` kept on its rows): only an option asked for is refused there
  if (inRecord && value !== true) return undefined;
  const names = inRecord ? IDENTIFYING_OPTIONS : IDENTIFYING_NAMES;
  const meant = names.includes(key) ? key : meantName(key, names);
  // what the slab endpoints do in any case: asked of them, it is answered
  if (!meant || (/^\/?slab_(id|grade)$/.test(endpoint) && meant.startsWith('slab_'))) return undefined;
  const takers = IDENTIFYING.filter(([, options, hints]) => (options as readonly string[]).includes(meant) || hints.includes(meant)).map(([path]) => path);
  const what = IDENTIFYING.some(([, options]) => (options as readonly string[]).includes(meant)) ? 'an option' : 'a hint';
  const named = meant === key ? (field === key ? `\`${key}\`` : field) : `${field} (\`${meant}\`)`;
  return `${named} is ${what} of ${takers.join(', ')}: ${endpoint} takes only "records" and would answer without it.`;
}

/** The first option asked in one of `records` (objects; others are passed over) that `endpoint` does not take ({@link notTakenHere}). */
export function optionNotTakenInRecords(endpoint: string, records: readonly unknown[]): { field: string; message: string } | undefined {
  for (const [i, record] of records.entries()) {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) continue;
    for (const [key, value] of Object.entries(record as Record<string, unknown>)) {
      const message = notTakenHere(endpoint, `records[${i}].${key}`, key, value, true);
      if (message) return { field: `records[${i}].${key}`, message };
    }
  }
  return undefined;
}

/**
 * A record's hint of the wrong type or length: that record's own 400, as an image field of the wrong form is (h258: the
 * request's 400, which left the good records beside it unread). `Autograph` may be a boolean too; a comic's `lang` is
 * one of its hints.
 */
export function hintProblem(record: Record<string, unknown>, family: Family = TCG): { field: string; message: string } | undefined {
  // a comic's `lang` too: the schema's 400 refused the whole request, the good records beside it unread
  for (const [key, max] of [['set_code', 50], ...HINTS.map((h) => [h, 100] as const), ['Autograph', 100], ...(family === COMICS ? [['lang', 20] as const] : [])] as const) {
    const v = record[key];
    if (v === undefined || v === null || (key === 'Autograph' && typeof v === 'boolean')) continue;
    if (typeof v !== 'string' || [...v].length > max) return { field: key, message: `${key} must be ${key === 'Autograph' ? 'a boolean or ' : ''}a string of at most ${max} characters` };
    // a blank one says nothing (no tag), as a blank Side does
    if (key === 'Alphabet' && v.trim() && !(ALPHABETS as readonly string[]).includes(v.trim().toLowerCase())) return { field: key, message: `Alphabet must be ${ALPHABETS.map((a) => `"${a}"`).join(' or ')} (the words of the Alphabet tag), not ${JSON.stringify(v)}` };
  }
  return undefined;
}

/** The family a catalog kind belongs to (trading cards for a shop's own `csv` game). */
export const familyOfKind = (kind: string): Family => [TCG, SPORT, COMICS].find((f) => f.kinds.includes(kind)) ?? TCG;

/**
 * What a family's "no catalog" 503 adds when the server holds catalogs of other families: the endpoints that read them
 * (h316: a sport-card and comics shop's `/analyze`, which reads trading cards as `/tcg_id` does, was told to import a
 * Pokémon, MTG or Yu-Gi-Oh! catalog, with its checklist and comics imported and nothing saying where those are read).
 */
export function catalogsElsewhere(family: Family, all: readonly { name: string; kind: string }[]): string {
  const paths = new Map<string, string[]>();
  for (const c of all) {
    if (family.kinds.includes(c.kind)) continue;
    const other = familyOfKind(c.kind);
    const path = other === SPORT ? '/sport_id' : other === COMICS ? '/comics_id' : '/tcg_id';
    paths.set(path, [...(paths.get(path) ?? []), c.name]);
  }
  const read = [...paths].map(([path, names]) => `${path} (${names.join(', ')})`);
  return read.length ? ` The catalogs imported here are read by ${read.join(' and ')}.` : '';
}

/**
 * A comic's clues with its digits-only title (`1602`) read as the series' name, not its issue: where the top fifth's
 * largest line is a bare number (titleNumberLine) that a catalog names a series by (`isSeries`, the folded name asked
 * exactly), it leaves the numbers and leads the names. Else the clues as they were: a corner box's `300` beside the
 * Uncanny X-Men logo stays that issue, however a catalog holds Dark Horse's 300 (h322).
 */
export async function withSeriesTitledByNumber(clues: CardClues, lines: readonly CardTextLine[], isSeries: (nameNorm: string) => Promise<boolean>): Promise<CardClues> {
  const line = titleNumberLine(lines);
  if (!line) return clues;
  const text = line.text.trim();
  const key = numberKey(text);
  const taken = (n: CardClues['numbers'][number]) => n.form === 'lone' && n.key === key;
  if (!clues.numbers.some(taken) || !(await isSeries(normalizeName(text)))) return clues;
  return { ...clues, numbers: clues.numbers.filter((n) => !taken(n)), names: [{ text, norm: normalizeName(text), prob: line.prob, score: line.prob }, ...clues.names.filter((n) => n.norm !== normalizeName(text))] };
}

/** Sports as checklists and hints name them, letters only, lower case. */
const SPORTS = new Set(['baseball', 'basketball', 'football', 'hockey', 'soccer', 'golf', 'tennis', 'boxing', 'racing', 'wrestling', 'mma', 'cricket', 'rugby', 'volleyball']);
/** Other names of one sport, as hints and checklists write them. */
const SPORT_NAMES: Record<string, string> = { americanfootball: 'football', icehockey: 'hockey', nhl: 'hockey', nfl: 'football', nba: 'basketball', mlb: 'baseball', formula1: 'racing', f1: 'racing', nascar: 'racing', ufc: 'mma' };
const letters = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]/g, '');
export const sportKey = (s: string) => SPORT_NAMES[letters(s)] ?? letters(s);

/**
 * Whether a sport card's front shows one of `cards`' players, his name a line of its own, with that card's team on
 * another line: what a base front prints where it prints no number (Topps prints it on the back). A tight scan of one,
 * read whole, showed nothing only cards print and was "no card" though the player and his team were read (h316).
 * The team by its last word (`Yankees` of `New York Yankees®`, `Sox`), as fronts print the nickname; digits and a
 * hyphen are part of it (`49ers`, `76ers`, `Saint-Germain`: read as `ers`, neither a 49ers' nor a Sixers' front was
 * a card), and a club's `FC` / `CF` / `AFC` is passed over for the word before it (`Liverpool FC`: `fc` was too short
 * to be taken, and no team was ever seen).
 */
export function showsPlayerAndTeam(lines: readonly string[], cards: readonly { name: string; fields: Record<string, unknown> }[]): boolean {
  const read = lines.map((l) => {
    const plain = l.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
    // words cut at any sign (`CUBS·PITCHER`) and words as spaced (`49ERS`, `SAINT-GERMAIN`)
    return { whole: letters(l), words: new Set([...plain.split(/[^a-z0-9]+/), ...plain.split(/\s+/).map(letters)]) };
  });
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const nickname = (team: string) => team.replace(/[®™]/g, '').trim().split(/\s+/).map(letters).filter((w) => w.length >= 3 && w !== 'afc').pop();
  return cards.some((card) => {
    const players = strings(card.fields.players);
    const nicknames = strings(card.fields.teams).flatMap((t) => nickname(t) ?? []);
    return (players.length ? players : [card.name]).some((player) => {
      const name = letters(player);
      const at = name.length >= 5 ? read.findIndex((l) => l.whole === name) : players.length ? read.findIndex((l) => shortNameLine(l, player)) : -1;
      return at >= 0 && read.some((l, i) => i !== at && nicknames.some((n) => l.words.has(n)));
    });
  });
}

/**
 * Whether a line is a short one-word player's name alone (`PELÉ`, `KAKÁ`, `NANI`): under five letters a name is too
 * like a front's other words (`GOLD`, `FOIL`, `TEAM`) to be taken as the spaced, glued or partial letters longer ones
 * are, so it counts only where the checklist names that player by this one word (never a card's own name standing in
 * for a player's) and the line is that word and nothing else, of three letters at least.
 */
function shortNameLine(line: { words: ReadonlySet<string> }, player: string): boolean {
  // composed first: a checklist's decomposed `é` is a letter and a mark, no longer a word of letters alone
  const name = player.trim().normalize('NFC');
  if (!/^\p{L}+$/u.test(name)) return false;
  const word = letters(name);
  const words = [...line.words].filter(Boolean);
  return word.length >= 3 && words.length === 1 && words[0] === word;
}

/**
 * The parts of a record's `Subcategory` and `Category` hints, in that order, each a name as a whole
 * (`Trading Card Game/Pokemon`: `tradingcardgame`, `pokemon`), not a word inside another name.
 */
function hintParts(record: Record<string, unknown>): string[] {
  return [record.Subcategory, record.Category].flatMap((hint) => (typeof hint === 'string' ? hint.split('/') : []));
}

/** The sport a `/sport_id` record's `Category` or `Subcategory` hint names (`Sport Card/Basketball`, `Hockey`), letters only; undefined when none. */
export function sportOfHints(record: Record<string, unknown>): string | undefined {
  return hintParts(record).map(sportKey).find((s) => SPORTS.has(s));
}

/**
 * The shop's own game (a `--kind csv` catalog, named by its catalog as its matches' record `Category` names it:
 * `Trading Card Game/lorcana`) that a record's `Category` or `Subcategory` hint names, among `catalogs`; its catalog's
 * name, or undefined. h329: the hint was not read, and a Lorcana-hinted card was matched to a Pokémon card.
 */
export function shopGameOfHints(record: Record<string, unknown>, catalogs: readonly { name: string; kind: string }[]): string | undefined {
  for (const part of hintParts(record).map(letters)) {
    const named = part ? catalogs.find((c) => c.kind === 'csv' && letters(c.name) === part) : undefined;
    if (named) return named.name;
  }
  return undefined;
}

/** A category path's first part that says "trading card game" (`Trading Card Game/…`, as our `Category` writes it; `TCG/…`), letters only. */
const TCG_ROOTS = new Set(['tradingcardgame', 'tcg']);
/** A path's second part that names no game: free words a taxonomy puts there, or the family again. */
const NO_GAME = new Set(['other', 'others', 'unknown', 'any', 'all', 'none', 'misc', 'mixed', 'various', 'tcg', 'tradingcardgame', 'tradingcard', 'tradingcards', 'card', 'cards', 'game', 'games']);

/**
 * The trading-card game a `Category` or `Subcategory` hint names as a path (`Trading Card Game/Dragon Ball`), as the
 * client wrote it, for the caller to use when neither a known game ({@link gameOfHints}) nor an imported shop's game
 * ({@link shopGameOfHints}) is it: none of its catalogs is imported, and the search keeps to it, finding nothing (h333: the
 * hint was ignored, the card matched to a Pokémon card and the hint replaced by `Trading Card Game/Pokemon`). Free text
 * that names no game (`Trading Card Game`, `TCG`, `card`, `Trading Card Game/Other`) names none: every game is searched.
 */
export function pathGameOfHints(record: Record<string, unknown>): string | undefined {
  for (const hint of [record.Subcategory, record.Category]) {
    if (typeof hint !== 'string') continue;
    const [root = '', name = ''] = hint.split('/').map((p) => p.trim());
    const key = letters(name);
    if (TCG_ROOTS.has(letters(root)) && key && !NO_GAME.has(key)) return name;
  }
  return undefined;
}

/** Games' names as a hint writes them, letters only, lower case. */
const hintGames: Record<string, Exclude<(typeof TCG_KINDS)[number], 'csv'>> = { pokemon: 'pokemon', magicthegathering: 'mtg', magic: 'mtg', mtg: 'mtg', yugioh: 'yugioh' };

/** The trading-card game a record's `Category` or `Subcategory` hint names (`Trading Card Game/Pokemon`, `MTG`, `Yu-Gi-Oh!`), if one. */
export function gameOfHints(record: Record<string, unknown>): Exclude<(typeof TCG_KINDS)[number], 'csv'> | undefined {
  // letters only: `Pokémon 151` names the game
  const game = hintParts(record).map((part) => letters(part).replace(/[0-9]/g, '')).find((t) => Object.hasOwn(hintGames, t));
  return game === undefined ? undefined : hintGames[game];
}
