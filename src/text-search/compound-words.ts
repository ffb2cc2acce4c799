/**
 * German writes a thing and what it is made of, or what it is for, as one word (Holztisch, Wanduhr, Arbeitsplatte):
 * a shopper's "Holztisch rund" found nothing where records said "Holz" and "Tisch" (h177). A query's word that neither
 * the lexicon nor the collection knows is read as two words both know, the linking letters between them (s, es, n, en,
 * e) dropped: Holztisch → holz tisch, Arbeitstisch → arbeit tisch.
 */

/** The shortest part a compound is split into: shorter ones (an, ab, in) would split most words somewhere. */
const MIN_PART = 3;
/** Words shorter than this are left whole. */
export const MIN_COMPOUND = 2 * MIN_PART + 1;
const LINKING = ['es', 'en', 's', 'n', 'e'];

/**
 * The two known parts of `word`, the left as long as can be found first from the shortest up (German puts the
 * compound's head last), or null. `known` says whether a part is a word of the lexicon or of the collection.
 */
export async function splitCompound(word: string, known: (part: string) => Promise<boolean>): Promise<[string, string] | null> {
  const letters = [...word];
  if (letters.length < MIN_COMPOUND || !/^\p{L}+$/u.test(word)) return null;
  for (let i = MIN_PART; i <= letters.length - MIN_PART; i++) {
    const right = letters.slice(i).join('');
    const left = letters.slice(0, i).join('');
    const lefts = [left, ...LINKING.filter((l) => left.endsWith(l) && [...left].length - [...l].length >= MIN_PART).map((l) => left.slice(0, -l.length))];
    for (const l of lefts) {
      if ((await known(l)) && (await known(right))) return [l, right];
    }
  }
  return null;
}
