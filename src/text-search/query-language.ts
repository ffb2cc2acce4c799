/**
 * Which language a query (or a record's text) is in, without a dependency: the script decides
 * first, and for Latin script the most stop-word and lexicon hits decide. The answer picks the
 * PostgreSQL text-search configuration, the prefix rule on SQLite, and which language's meaning
 * of a word wins when two languages read it differently (en `rose` is a shade, fr `rose` pink).
 */
import { graderNames, lexiconIndex, spelledAsOwn, spelling, type LexiconLanguage } from './lexicon/lexicon.ts';
import { foldText } from './text-fold.ts';

/** The lexicon's languages, plus Latin-script languages PostgreSQL can stem that have no lexicon yet, plus `simple` (none known). */
export type QueryLanguage = LexiconLanguage | 'de' | 'id' | 'simple';

/**
 * Short stop-word lists: the function words a query carries around the words that matter
 * ("a red car with a dog", "un coche rojo con un perro"). They are dropped from the text terms
 * and count as evidence of the language. Folded (no accents), like everything compared.
 */
const wordSet = (list: string): ReadonlySet<string> => new Set(foldText(list).split(' '));

export const stopWords: Readonly<Partial<Record<QueryLanguage, ReadonlySet<string>>>> = {
  en: wordSet('a an the and or of in on at with without for to from by is are this that these those my your photo photos picture pictures image images some'),
  es: wordSet('un una unos unas el la los las y o de del en con sin para por al que es son mi su foto fotos imagen imagenes'),
  fr: wordSet("un une des le la les l et ou de du d en au aux avec sans pour par sur qui est sont mon ma mes photo photos image images"),
  pt: wordSet('um uma uns umas o a os as e ou de do da dos das em no na nos nas com sem para por que foto fotos imagem imagens'),
  de: wordSet('ein eine einen einem einer der die das den dem des und oder von vom mit ohne für aus auf über unter neben nach als wie im in am an bei beim zu zum zur ist sind bild bilder foto fotos'),
  id: wordSet('dan atau dengan tanpa untuk di ke dari yang ini itu sebuah seorang foto gambar'),
  // (Italian leaves out `per`, `i`, `uno`, `lo` and Dutch `is`, `die`, `op`, `van`, `met`: English words ("price per card", "I", the
  // UNO game, die-cast, One Piece's OP, a camper van, "not met") that made English text read as Italian or Dutch and dropped them from the terms)
  it: wordSet('un una il la gli le e ed o di del dello della dei degli delle in nel nello nella nei con senza da dal dallo dalla al alla su sul sulla che è foto immagine immagini'),
  // (nor `of`, `naar`: "Honden of Cleansing Fire", "Shah of Naar Isle" read as Dutch, h201)
  nl: wordSet('een de het en zonder voor in aan bij uit dat deze dit zijn foto fotos afbeelding afbeeldingen'),
  // Polish, Turkish, Swedish: only words no earlier language's query carries as often (not `i`, English "I"; not pl `to`, `do`, `na`, `we`,
  // `pod`; tr `de`, `da`, `o`; sv `de`, `den`, `det`, `min`, `till`, `av`), so an English, German or Romance query is not read as one of them
  pl: wordSet('w z ze dla bez oraz lub albo jest są przy nad od zdjęcie zdjęcia zdjęć obraz obrazek kolorze'),
  tr: wordSet('ve ile veya bir bu için gibi olan fotoğraf fotoğrafı fotoğraflar resim resmi resimler görsel'),
  // (sv `man` is "one", "som man ser på bilden", h197: in Swedish text it is no English or Dutch man; `män`, men, typed so, still is)
  sv: wordSet('och eller med utan för på från en ett som är man bild bilder foto'),
  ru: wordSet('и или в во на с со без для из от по к у это фото фотография картинка изображение'),
  hi: wordSet('और या का की के में पर से को है हैं एक यह वह फोटो फ़ोटो तस्वीर चित्र'),
  bn: wordSet('এবং ও বা এর র এ তে থেকে সাথে সঙ্গে একটি একটা এই ছবি'),
  ur: wordSet('اور یا کا کی کے میں پر سے کو ہے ہیں ایک یہ وہ تصویر فوٹو'),
  ar: wordSet('و او في على من مع بدون الى عن هذا هذه ذلك صورة صور'),
  zh: wordSet('的 和 与 及 或 在 是 有 一个 一只 一辆 张 照片 图片 图像'),
  ja: wordSet('の と や を に は が で も へ から 写真 画像'),
};

// Italian and Dutch last: a tie with an earlier language keeps the reading it had before they had a lexicon.
const latinLanguages = ['en', 'es', 'fr', 'pt', 'de', 'id', 'it', 'nl', 'pl', 'tr', 'sv'] as const;
const lateLatin: ReadonlySet<string> = new Set(['it', 'nl', 'pl', 'tr', 'sv']);

const scriptOf: [RegExp, QueryLanguage][] = [
  [/[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/u, 'ja'], // kana: Japanese even when kanji are present
  [/\p{Script=Han}/u, 'zh'],
  [/\p{Script=Devanagari}/u, 'hi'],
  [/\p{Script=Bengali}/u, 'bn'],
  [/\p{Script=Cyrillic}/u, 'ru'],
];

// Letters Urdu writes and Arabic does not (ٹ ڈ ڑ ں ے ہ ھ ی ک گ); Arabic writes ي ك ة instead.
const urduLetters = /[\u0679\u0688\u0691\u06ba\u06d2\u06c1\u06be\u06cc\u06a9\u06af]/u;
const arabicScript = /\p{Script=Arabic}/u;

/**
 * The language of a folded query given its words. When the text mixes scripts, any non-Latin
 * script decides ("red 椅子" is Chinese): the Latin words of such a query are usually loanwords
 * or brand names, while the other script is the writer's own.
 */
export function detectLanguage(folded: string, words: readonly string[], typed?: ReadonlyMap<string, ReadonlySet<string>>): QueryLanguage {
  for (const [re, lang] of scriptOf) if (re.test(folded)) return lang;
  if (arabicScript.test(folded)) return urduLetters.test(folded) ? 'ur' : 'ar';
  const score = new Map<QueryLanguage, number>();
  // evidence from forms that are their language's only (`ownLanguageOnly`), counted only beside other evidence:
  // alone, "cafe" or "Café Paris" is the word café, not Spanish brown (h89)
  let other = 0;
  const { phrases } = lexiconIndex();
  for (const w of words) {
    // (a lone letter of the languages added last is no evidence: Polish `z` and `w` made "Jay Z" Polish, h201; English `a`,
    // Spanish `y`, French `à` stay evidence, as they were)
    for (const lang of latinLanguages) {
      if (!stopWords[lang]?.has(w) || (w.length < 2 && lateLatin.has(lang))) continue;
      score.set(lang, (score.get(lang) ?? 0) + 1);
      other++;
    }
    // a form that is its language's only where the text is read as it (`ownLanguageOnly`) is half the evidence:
    // "sofá café" and "lámpara café" are still Spanish, "chaise de café" French (h83, h86)
    const weight = new Map<QueryLanguage, number>();
    // (typed with its language's marks, `röd`, `tåg`, `sarı`, it is that language's full evidence: `typed`, folded word → spellings)
    // (nor is a card grader's name, pl `psa`: "psa/psa_card.jpg" is no Polish)
    for (const e of graderNames.has(w) ? [] : (phrases.get(w) ?? [])) {
      const own = !e.ownOnly || spelledAsOwn(e, typed?.get(w));
      weight.set(e.lang, Math.max(weight.get(e.lang) ?? 0, own ? 1 : 0.5));
      if (own) other++;
    }
    for (const [lang, add] of weight) score.set(lang, (score.get(lang) ?? 0) + add);
  }
  let best: QueryLanguage = 'simple';
  let bestScore = 0;
  // ...unless two of them are one language's: Dutch "rode appel" (a red apple) holds only words English or French also
  // writes, and is Dutch all the same; one alone ("candy cane", "the rider rode") is not
  if (other === 0) return latinLanguages.find((lang) => (score.get(lang) ?? 0) >= 1) ?? best;
  // Ties go to the earlier language in `latinLanguages`: English first, as the most common query language.
  for (const lang of latinLanguages) {
    const s = score.get(lang) ?? 0;
    if (s > bestScore) [best, bestScore] = [lang, s];
  }
  return best;
}

/**
 * Number words a query puts before a people word ("two people", "dos personas", "двое людей"),
 * folded, to the count they name; digits count too. A count beside a person concept searches the
 * people-count codes the index writes (seen-tokens.ts). Group words name six or more.
 */
const countWordsWritten: Readonly<Record<string, number>> = {
    one: 1, single: 1, two: 2, couple: 2, pair: 2, three: 3, four: 4, five: 5,
    un: 1, uno: 1, una: 1, dos: 2, tres: 3, cuatro: 4, cinco: 5,
    une: 1, deux: 2, trois: 3, quatre: 4, cinq: 5,
    um: 1, uma: 1, dois: 2, duas: 2, quatro: 4,
    due: 2, tre: 3, quattro: 4, cinque: 5,
    twee: 2, drie: 3, vier: 4, vijf: 5,
    // pl, tr, sv (not tr bir, the article, nor dört, German "dort"; not sv en, French "en"; sv tre is Italian's too)
    jeden: 1, jedna: 1, dwa: 2, dwie: 2, dwoje: 2, dwóch: 2, dwaj: 2, trzy: 3, troje: 3, trzech: 3, trzej: 3, cztery: 4, czworo: 4, czterech: 4, czterej: 4, pięć: 5, pięciu: 5, pięcioro: 5,
    iki: 2, üç: 3, beş: 5,
    två: 2, fyra: 4, fem: 5,
    один: 1, одна: 1, два: 2, две: 2, двое: 2, три: 3, трое: 3, четыре: 4, четверо: 4, пять: 5, пятеро: 5,
    एक: 1, दो: 2, तीन: 3, चार: 4, पांच: 5, पाँच: 5,
    এক: 1, একজন: 1, দুই: 2, দুজন: 2, তিন: 3, তিনজন: 3, পাঁচ: 5,
    واحد: 1, اثنان: 2, اثنين: 2, ثلاثة: 3, اربعة: 4, خمسة: 5,
    ایک: 1, تین: 3, پانچ: 5,
};
export const countWords: ReadonlyMap<string, number> = new Map(Object.entries(countWordsWritten).map(([w, n]) => [foldText(w), n]));
/**
 * Number words as written, with their marks (lower case, NFC): typed so, a word is the number even where its fold is a
 * lexicon form (`pięć`, five, folds to `piec`, an oven: "pięć osób" is five people, h197).
 */
export const countWordSpellings: ReadonlySet<string> = new Set(Object.keys(countWordsWritten).map(spelling).filter((w) => w !== foldText(w)));
export const groupWords: ReadonlySet<string> = new Set(['group', 'groups', 'crowd', 'grupo', 'grupos', 'multitud', 'groupe', 'foule', 'multidao', 'gruppo', 'folla', 'groep', 'menigte', 'grupa', 'grupy', 'grupę', 'tłum', 'grup', 'grubu', 'gruplar', 'grupları', 'kalabalık', 'grupp', 'folkmassa', 'группа', 'толпа', 'समूह', 'भीड़', 'مجموعة', 'حشد', 'گروپ', 'ہجوم', '群', 'グループ', '集団'].map(foldText));

/** Group words that mean people by themselves ("crowd", "foule"): alone they ask for a group of people. */
export const crowdWords: ReadonlySet<string> = new Set(['crowd', 'crowds', 'multitud', 'foule', 'multidao', 'folla', 'menigte', 'tłum', 'kalabalık', 'folkmassa', 'толпа', 'भीड़', 'حشد', 'ہجوم'].map(foldText));

const cjkNumbers: Readonly<Record<string, number>> = { 一: 1, 二: 2, 两: 2, 兩: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };

/**
 * Chinese and Japanese write a count into the people word ("两个人", "三名", Japanese "二人") and a
 * crowd as one word ("一群人", "人群", "群衆"), which the segmenter keeps whole or splits as
 * "两" + "个人" (individual). These are rewritten as the other languages' counts are read: the
 * number in digits beside 人, a crowd as 群 beside 人. Only the words searched change; the
 * query's text is kept as sent.
 */
export function cjkPeopleCounts(text: string): string {
  return text
    .replace(/([一二两兩三四五六七八九十])\s*(?:个|個|名|位)?\s*人(?![掛用分前乗様暮])/gu, (_, n: string) => ` ${cjkNumbers[n]} 人 `)
    .replace(/一群|人群|群众|群眾|群衆|大勢/gu, ' 群 人 ');
}
