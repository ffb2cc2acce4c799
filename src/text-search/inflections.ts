/**
 * SQLite's stand-in for the Snowball stemmers PostgreSQL stems words by: a query word's other inflected forms, as the
 * word with one of its language's inflection endings exchanged for another (`zapatos` → `zapato`, `zapata`…;
 * `horozlar` → `horoz`). FTS5's porter tokenizer stems English only. SQLite looked for such a word by a bare prefix of
 * all but its last two letters before (h292), which found any longer word beginning so, where no stemmer joins them:
 * "jackal" found "Jackpot" and "Leather jacket", "carpet" "Carpenter tools", "zapatos" "zapatero", each a 422 or
 * nothing on PostgreSQL. The adapter searches those of these forms the collection's index holds.
 *
 * The endings are the noun and adjective inflections each language's Snowball stemmer takes off, written as
 * `foldText` leaves them (accents dropped: Polish `ów` is `ow`, Turkish `ı` is `i`). A pair of endings is exchanged
 * only within one language's list, so a Swedish ending never meets a Turkish one.
 */

// One list a language, space-separated; the word itself (no ending) is implied.
const endingLists: Readonly<Record<string, string>> = {
  es: 's es a as o os e',
  pt: 's es a as o os e',
  it: 'a e i o he hi',
  fr: 's x e es',
  de: 'e en er ern es n s em nen ens',
  nl: 'e en s es er eren',
  sv: 'a e n t s ar or er en et na arna orna erna ens ets ns ts ars ors ers as es arnas ornas ernas',
  pl: 'a e i o u y ie ach ami om ow em owi owie ego emu ej ym im ymi imi ich ych mi iem iach iami iom iow',
  tr: 'lar ler i u a e in un nin nun yi yu ya ye da de ta te dan den tan ten si su lari leri larin lerin lara lere la le yla yle',
  ru: 'а я ы и у ю е о ь й ой ей ий ый ом ем ам ям ах ях ами ями ов ев ая яя ое ее ые ие ого его ому ему ых их ым им ыми ими ую юю ью ия ии ию ием ья ьи ьев',
  id: 'nya ku mu lah kah pun kan an i',
};
// a second list of a language, whose endings are exchanged only among themselves: French cheval/chevaux,
// national/nationaux, where a word in -al is not its bare stem (`nation`)
const extraLists: Readonly<Record<string, string>> = { fr: 'al aux ale ales als' };

const endings: ReadonlyMap<string, readonly (readonly string[])[]> = new Map(
  Object.entries(endingLists).map(([lang, list]) => [lang, [['', ...list.split(' ')], ...(extraLists[lang] ? [extraLists[lang].split(' ')] : [])]]),
);

/** The languages SQLite finds a word's inflected forms in (`inflectedForms`). */
export const inflectedLanguages: readonly string[] = [...endings.keys()];

/**
 * The European languages a record of no told language is stemmed in besides English (PostgreSQL's configurations of it,
 * `pgRecordConfigs`): a short title, "Chitarra classica", "Fernglas 10x42", is often in one of them (h269). Turkish and
 * Indonesian are left out: their stemmers cut English words' endings as suffixes ("solar" → `so`, "dollar" → `dol`).
 */
export const untoldRecordLanguages = ['es', 'fr', 'pt', 'it', 'de', 'nl', 'sv'] as const;

/**
 * The shortest stem a form is made on: a shorter one is a different word too often (`gatos` → `gate`, English). Russian
 * nouns of three letters are many (`час`, `дом`, `лес`) and no other of these languages is written in Cyrillic: "часов"
 * found "Настенные часы" on PostgreSQL and was a 422 on SQLite (search-quality's one record-text miss there).
 */
const minStemOf = (lang: string) => (lang === 'ru' ? 3 : 4);

/**
 * The languages a query word's inflected forms are made in: the query's and, as PostgreSQL stems a query by every
 * language the collection's records are stemmed in, the records' (a record of no told language's European ones).
 */
export function stemLanguages(queryLanguage: string, recordLanguages: Iterable<string>): string[] {
  const out = new Set<string>();
  if (endings.has(queryLanguage)) out.add(queryLanguage);
  for (const l of recordLanguages) for (const x of l === 'simple' ? untoldRecordLanguages : [l]) if (endings.has(x)) out.add(x);
  return [...out];
}

/**
 * The other forms of `word` (folded) in `languages`: for each ending of a language's list it ends in, leaving a stem of
 * four letters or more (Russian three), that stem with each other ending of the list. The word itself is not among them.
 */
export function inflectedForms(word: string, languages: Iterable<string>): string[] {
  const out = new Set<string>();
  const letters = [...word];
  for (const lang of languages) {
    for (const list of endings.get(lang) ?? []) {
      for (const ending of list) {
        if (!word.endsWith(ending)) continue;
        const stem = letters.slice(0, letters.length - [...ending].length).join('');
        if ([...stem].length < minStemOf(lang)) continue;
        for (const other of list) out.add(stem + other);
      }
    }
  }
  out.delete(word);
  return [...out];
}
