import { foldScripts, withoutBidi } from '../util/script-fold.ts';

/**
 * A collector number as it names a card: every run of digits without its leading zeros, so
 * "025/165" and "25/165" are one card ("0" stays "0").
 */
export function foldCardNumber(number: string): string {
  return number.replace(/(^|[^0-9])0+(?=[0-9])/g, '$1');
}

/**
 * A row's card key (`kind|name|set|number`) as stored by a release before migration 021, made as 021
 * made it: composed (NFC) and its number folded. Summaries count distinct keys, so the same card
 * sent once as "025" and once as "25" counted twice. (Migration 024 makes every key again from the
 * row's own fields, `cardKey`: a stored key had lost what NFKC needs, a zero after a full-width digit.)
 */
export function refoldCardKey(key: string): string {
  const cut = key.lastIndexOf('|');
  return key.slice(0, cut + 1).normalize('NFC') + foldCardNumber(key.slice(cut + 1).normalize('NFC'));
}

/**
 * A field as it names a card: compatibility form (NFKC: full-width ＳＶ２ａ and ０２５, half-width
 * ﾋﾟｶﾁｭｳ, as Japanese input methods type them, are SV2a, 025 and ピカチュウ; ™ is tm), lower case
 * after it, spaces collapsed, and the key's separator (and the escape) escaped with a backslash, so that
 * no field's `|` (or the full-width ｜ NFKC makes one) moves a part into the next. Since migration 028 also the
 * letters and digits one script types two ways made one (`foldScripts`: ٢٥/١٠٢ is 25/102, Urdu ی is ي) and
 * directional marks dropped (h146: one Pikachu in six scripts' digits counted as four cards), and a comic's
 * year kept (its volumes are other comics, h136).
 */
export const cardKeyPart = (s: string | null | undefined): string =>
  foldScripts(withoutBidi((s ?? '').normalize('NFKC')))
    .replace(invisible, '')
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase()
    // since migration 030 the lower cases JavaScript leaves apart, as the game filter folds them, and a Greek word's
    // accents, which its capitals drop (ΠΙΚΑΤΣΟΥ and Πικάτσου), h152
    .replace(caseLeftovers, (c) => caseFolds[c]!)
    .normalize('NFD')
    .replace(greekAccent, '$1')
    .normalize('NFC')
    .replace(/[\\|]/g, (c) => `\\${c}`);

// what lower case leaves where Unicode's case folding makes one: a final ς, ß (and ẞ), the i of a dotted capital İ
const caseFolds: Readonly<Record<string, string>> = { ς: 'σ', ß: 'ss', 'i\u0307': 'i' };
const caseLeftovers = /ς|ß|i\u0307/g;

// invisible in a name, so no other card (h152: "Pikachu" with a zero-width space, a soft hyphen or an emoji's variation
// selector counted as a second Pikachu)
const invisible = /[\u00ad\u200b-\u200d\u2060\ufeff]|\p{Variation_Selector}/gu;
const greekAccent = /([\u0370-\u03ff\u1f00-\u1fff])[\u0300-\u036f]+/gu;

/**
 * Two rows are the same card when kind, name, set and number agree, ignoring case, spaces, Unicode
 * form and width (NFKC) and a number's leading zeros (keys stored before were made again,
 * migrations 021 and 024). The set is its code when known, else its name; the name falls back to
 * the full name. Rows with neither name nor full name are unidentified and not counted as cards.
 */
export function cardKey(row: { id_type?: string | null; name?: string | null; full_name?: string | null; set_code?: string | null; set_name?: string | null; card_number?: string | null; year?: string | null }): string | null {
  const name = cardKeyPart(row.name) || cardKeyPart(row.full_name);
  if (!name) return null;
  const kind = cardKeyPart(row.id_type);
  // a comic's volumes share series and issue (Avengers #1 of 1963 and of 2018): its year tells them apart (h136: a
  // $15,000 first issue and a $4.99 reprint counted as one); the year goes before the number, which stays last
  const volume = kind === 'comics' && cardKeyPart(row.year) ? [cardKeyPart(row.year)] : [];
  return [kind, name, cardKeyPart(row.set_code) || cardKeyPart(row.set_name), ...volume, foldCardNumber(cardKeyPart(row.card_number))].join('|');
}

/** `refoldCardKey` of a column in PostgreSQL (the same result; `card-keys.test.ts` compares them). */
export const pgRefoldCardKey = (column: string): string => {
  const number = `substring(${column} from '[^|]*$')`;
  return `normalize(left(${column}, length(${column}) - length(${number})), NFC) || regexp_replace(normalize(${number}, NFC), '(^|[^0-9])0+([0-9])', '\\1\\2', 'g')`;
};

/**
 * A session's `game` as its list filter compares it: case, spaces and width aside (NFKC, then lower case), and
 * the lower cases JavaScript leaves apart folded as Unicode's case folding does: a final ς is σ, ß (and ẞ) ss, and
 * the i of a dotted capital İ plain i (`?game=istanbul` finds İSTANBUL; migration 025).
 */
export function gameKey(game: string): string {
  return game.normalize('NFKC').trim().toLowerCase().replace(caseLeftovers, (c) => caseFolds[c]!).normalize('NFC');
}

/**
 * The spec's documented values, by their key; any case or width is accepted and stored as the spec spells them, and
 * so is a kind as a card's `id_type` spells it (`sport`, `comic`, `slab`: an app that sent its id_type as the game had
 * sessions `?game=Sports` did not find, h264).
 */
const documentedGames: Record<string, string> = { '': '', tcg: 'TCG', sports: 'Sports', comics: 'Comics', slabs: 'Slabs', sport: 'Sports', comic: 'Comics', slab: 'Slabs' };

/** A documented value in its spelling; any other game (a display name such as "Pokémon") exactly as sent. */
export function storedGame(game: string): string {
  const key = gameKey(game);
  return Object.hasOwn(documentedGames, key) ? documentedGames[key]! : game;
}
