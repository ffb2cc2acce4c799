import type { CollectionQueries, Filter, Hit, TextHit } from '../../index/collection-queries.ts';
import type { CollectionRecord, CollectionStore, StoredRecord } from '../../store/collection-store.ts';
import { colorCode, familyCode, familyOf, itemCode, objectCode, type CocoLabel, type ColorName, type ItemKind } from '../../text-search/lexicon/concepts.ts';
import { lexiconIndex, lexiconLanguages } from '../../text-search/lexicon/lexicon.ts';
import { TOKENS_VERSION } from '../../text-search/seen-tokens.ts';
import { maxQueryWords, parseQuery, type ParsedQuery } from '../../text-search/query.ts';
import { MIN_COMPOUND, splitCompound } from '../../text-search/compound-words.ts';
import { nameColor } from '../../vision/models/dominant-colors.ts';
import { ownWordsName } from './own-words.ts';
import { fuseByLook, KEYWORD_POOL, LOOK_FIRST, LOOK_POOL, lookOf, MAX_LOOKS, SEEDS, withinSeeds } from './look-expansion.ts';
import { colorMatch, colorWordShare, dominantColorsProblem, storedColors, type DominantColorsQuery } from './color-match.ts';
import { status, stopwatch, type SearchContext } from '../envelope.ts';
import { ServiceError } from '../errors.ts';
import type { VisionService } from '../vision-service.ts';
import { textEngineOf, type TextEngine } from './text-engine.ts';
import { ProductRule } from '../fashion/product-rule.ts';
import type { Envelope } from '../visual-search/answers.ts';
import { checkedFilter, filterFailuresAre400 } from '../visual-search/filters.ts';
import { distanceScale, onePerProduct } from '../visual-search/hits.ts';
import { project, type Fields } from '../visual-search/record-fields.ts';

/** A word of kana alone (katakana, hiragana, the prolonged sound mark). */
const kanaWord = /^[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff]+$/u;

export interface TextQueryBody {
  query_record?: unknown;
  k?: number;
  from?: number;
  fields_to_return?: string[];
  filter?: unknown;
  product_field?: string;
}


/** Colours a query ranks by (its strongest); a palette may send more (color-match.ts `maxPaletteColors`). */
const maxQueryColors = 8;

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
/** Keyword engine distance (docs/api-decisions.md): ascending, in (0, 100]. */
const keywordDistance = (score: number) => round4(100 / (1 + Math.max(0, score)));
/** The most candidates a colour re-rank reads (or 4·(k+from), when more): pages up to k+from = 250 are slices of one order. */
const rerankPool = 1000;

const bad = (message: string) => new ServiceError(400, 'invalid_request', message);

function dominantColorsOf(value: unknown): DominantColorsQuery | undefined {
  const problem = dominantColorsProblem(value);
  if (problem) throw bad(`query_record._dominant_colors${problem}.`);
  const { luv_colors: luv, percentages } = (value ?? {}) as { luv_colors?: [number, number, number][]; percentages?: number[] };
  if (!luv?.length) return undefined;
  // the strongest colours rank; the order among equals is the client's
  const kept = luv.map((c, i) => ({ c, p: percentages![i]!, i })).sort((a, b) => b.p - a.p || a.i - b.i).slice(0, maxQueryColors);
  return { luv: kept.map((x) => x.c), percentages: kept.map((x) => x.p) };
}

/** The query's colours as concept codes, each once, so a colour-only search has candidates. */
function colorCodes(colors: DominantColorsQuery): { code: string; weight: number }[] {
  const codes = new Set<string>();
  for (const luv of colors.luv) {
    const name = nameColor(luv) as ColorName;
    const family = familyOf[name];
    codes.add(familyCode(family));
    if (family !== name) codes.add(colorCode(name));
  }
  return [...codes].map((code) => ({ code, weight: 1 }));
}


/**
 * What a CLIP text tower reads: CLIP-family packs are trained on English captions, so a query in
 * another language is rendered through the lexicon (its concepts by their English names, in
 * query order) with its other words as they are (names, brands, numbers often carry over).
 */
export function englishOf(q: ParsedQuery, original: string): string {
  if (q.language === 'en' || q.concepts.length === 0) return original;
  return [...q.concepts.map((c) => c.concept.name), ...q.terms.filter((t) => !q.glued?.includes(t) && !Object.hasOwn(q.joined ?? {}, t))].join(' ');
}

/** A query whose every code is a colour word's (its shade and family codes) and that has no other word. */
function onlyColorWords(q: ParsedQuery, words: readonly ColorName[]): boolean {
  if (!words.length || q.terms.length) return false;
  const own = new Set(words.flatMap((w) => [colorCode(w), familyCode(familyOf[w])]));
  return q.codes.every((c) => own.has(c.code));
}

interface Ranked {
  record: StoredRecord;
  distance: number;
}

/**
 * Text search (spec 2 §1, §4 text search): a natural-language query against a collection's
 * images, by the keyword engine over what was seen at insert and the records' own words, or by a
 * CLIP-family pack's text tower where the collection holds that pack's vectors.
 */
export class TextSearchService {
  private readonly queries: CollectionQueries;
  private readonly products: ProductRule;

  constructor(
    private readonly store: CollectionStore,
    queries: CollectionQueries,
    private readonly vision: VisionService,
    /** The fashion rule 4 check, shared with visual search (one count per collection change). */
    products?: ProductRule,
  ) {
    this.queries = filterFailuresAre400(queries);
    this.products = products ?? new ProductRule(this.queries);
  }

  /** The engine a collection's text queries use (also reported by `ping`). */
  engineOf(c: CollectionRecord): TextEngine {
    return textEngineOf(c, this.vision.hasTextModel);
  }

  /**
   * The keyword answers fused with the records nearest the look of each object concept's first SEEDS answers
   * (look-expansion.ts), the first `m`. A concept's answers are those found by it (its code in their seen codes or own
   * words; an answer holding no code of the query's is every concept's), in keyword order among the first KEYWORD_POOL;
   * its look applies where each of its first SEEDS was found by what the server saw (its code in the seen codes, not in
   * the record's own words): the look then stands for what the detector saw, and a seller's own words are never
   * outranked by a photo's look. A concept whose look does not apply (or whose seeds have fewer than MIN_SEEDS vectors) adds no list; none: the
   * keyword answers as they are. `memo` keeps the looks' records for the request's later calls: the first KEYWORD_POOL
   * answers are the same whatever `m`, and product grouping calls again with a larger `m` (h313: the seeds and the
   * neighbour search ran again each time).
   */
  private async withLook(c: CollectionRecord, filter: Filter | undefined, objectCodes: readonly string[], byKeyword: (m: number) => Promise<Ranked[]>, m: number, memo: { looks?: Promise<Hit[][]> }): Promise<Ranked[]> {
    const keyword = await byKeyword(Math.max(KEYWORD_POOL, m));
    memo.looks ??= this.looksOf(c, filter, objectCodes, keyword.slice(0, KEYWORD_POOL));
    const looks = await memo.looks;
    return looks.length ? fuseByLook(keyword, looks).slice(0, m) : keyword.slice(0, m);
  }

  /** The look of each of the first MAX_LOOKS concepts that applies (withLook), in query order: the records near it that count (withinSeeds). */
  private async looksOf(c: CollectionRecord, filter: Filter | undefined, objectCodes: readonly string[], pool: readonly Ranked[]): Promise<Hit[][]> {
    const codes = objectCodes.slice(0, MAX_LOOKS);
    const holds = (text: string | undefined, code: string) => (text ?? '').split(' ').includes(code);
    const first = new Map(codes.map((code) => [code, [] as Ranked[]]));
    const failed = new Set<string>();
    const rows = new Map<number, { seen: string; body: string }>();
    // the answers' rows are read a few at a time (a row's body is up to 16 KB): one concept reads its first SEEDS, as it
    // did before each concept had its look; several read on (twice as many each time) until each has its SEEDS, or
    // one not found by what was seen, or the pool ends
    for (let read = 0, n = SEEDS * codes.length; read < pool.length && codes.some((code) => first.get(code)!.length < SEEDS && !failed.has(code)); read = n, n *= 2) {
      const more = pool.slice(read, n);
      for (const [key, row] of await this.store.text.seenAndBodiesOf(this.store.store.db, more.map((h) => h.record.key))) rows.set(key, row);
      for (const h of more) {
        const row = rows.get(h.record.key);
        // a record found by a concept past MAX_LOOKS alone is none of theirs
        const by = objectCodes.filter((code) => holds(row?.seen, code) || holds(row?.body, code));
        for (const code of by.length ? by : codes) {
          const seeds = first.get(code);
          if (!seeds || seeds.length >= SEEDS || failed.has(code)) continue;
          seeds.push(h);
          if (!holds(row?.seen, code) || holds(row?.body, code)) failed.add(code);
        }
      }
    }
    const vectors = new Map<string, Promise<Float32Array | undefined>>();
    const vectorOf = (id: string) => {
      if (!vectors.has(id)) vectors.set(id, this.queries.lookup(c, id).then((found) => found?.vector));
      return vectors.get(id)!;
    };
    const looks = await Promise.all(
      codes.map(async (code) => {
        if (failed.has(code)) return null;
        const seeds = await Promise.all(first.get(code)!.map((h) => vectorOf(h.record.recordId)));
        const look = lookOf(seeds);
        if (!look) return null;
        // most looks reach few records: the 200 nearest (ef_search 400 on PostgreSQL) only where the first 20 all lie within reach
        const first20 = withinSeeds(await this.queries.knn(c, look, LOOK_FIRST, filter), look, seeds);
        return first20.length < LOOK_FIRST ? first20 : withinSeeds(await this.queries.knn(c, look, LOOK_POOL, filter), look, seeds);
      }),
    );
    return looks.filter((l): l is Hit[] => l !== null);
  }

  /** Collections whose every row is tokenised as this release tokenises (a collection never goes back). */
  private readonly tokenised = new Set<string>();

  /** Whether rows of the collection still await re-tokenising after an upgrade (the backfill's second phase). */
  private async retokenising(c: CollectionRecord): Promise<boolean> {
    if (this.tokenised.has(c.id)) return false;
    const older = await this.store.text.olderTokens(this.store.store.db, c.id, TOKENS_VERSION);
    if (older === 0) this.tokenised.add(c.id);
    return older > 0;
  }

  /**
   * A German query's words (or a run of kana) that neither the lexicon nor the collection knows, read as two words both know
   * (compound-words.ts): the query is parsed again with them apart, so a part the lexicon names is its concept. A query
   * of no known language is tried too ("Holztisch rund" reads as none), and kept split only if it then reads as German.
   */
  private async splitCompounds(c: CollectionRecord, q: ParsedQuery, legacyKana: boolean): Promise<ParsedQuery> {
    const long = q.terms.filter((t) => [...t].length >= MIN_COMPOUND);
    if (!long.length) return q;
    const found = await this.queries.present(c, { ...q, codes: [], literals: [], terms: long });
    const unknown = long.filter((t) => !found.has(t));
    if (!unknown.length) return q;
    const seen = new Map<string, boolean>();
    const known = async (part: string): Promise<boolean> => {
      let k = seen.get(part);
      if (k === undefined) {
        const alone = parseQuery(part);
        k = (alone.ok && alone.query.concepts.length > 0 && alone.query.terms.length === 0) || (await this.queries.present(c, { ...q, codes: [], literals: [], terms: [part] })).has(part);
        seen.set(part, k);
      }
      return k;
    };
    let text = q.text;
    // kana typed without a space between two words the collection holds (ピカチュウプロモ, ポケモンカードピカチュウ): read
    // apart as well, whatever the language (h213: a 422 saying no word was in the records)
    let kanaSplit = false;
    const splitParts: [string, string][] = [];
    for (const word of unknown) {
      const parts = await splitCompound(word, known);
      if (!parts) continue;
      splitParts.push(parts);
      const kana = kanaWord.test(word);
      kanaSplit ||= kana;
      // a kana run ends where the kana do: a particle, digits or kanji may touch it (ピカチュウプロモの, h218)
      const edge = kana ? '\\u30a0-\\u30ff' : '\\p{L}\\p{M}\\p{N}';
      text = text.replace(new RegExp(`(?<![${edge}])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![${edge}])`, 'gu'), parts.join(' '));
    }
    if (text === q.text) return q;
    const again = parseQuery(text, undefined, { legacyKana });
    // German only: a query of no known language ("Holztisch rund") is German once a part is a German word; parts read as
    // another language ("blackboard" as black and a records' board) leave the query as it was. A compound whose head (its
    // last part, as German builds them) is a German lexicon word that other languages share is read apart as well
    // ("Wohnzimmersofa": Wohnzimmer from the records, sofa also English, made the query English; it was a 422 that
    // "Wohnzimmer Sofa" was not, h281)
    if (!again.ok) return q;
    const germanHead = ([, head]: [string, string]) => lexiconIndex().phrases.get(head)?.some((e) => e.lang === 'de') === true;
    if (again.query.language !== 'de' && !kanaSplit && !splitParts.some(germanHead)) return q;
    // the words as an earlier release folded them, which the folded text parsed again no longer shows (h178: rows not
    // yet re-tokenised were missed while a compound was split)
    const legacy = q.legacy ?? {};
    if (!Object.keys(legacy).length) return again.query;
    return { ...again.query, terms: [...new Set([...again.query.terms, ...Object.keys(legacy)])], legacy: { ...legacy, ...(again.query.legacy ?? {}) } };
  }

  async search(ctx: SearchContext, c: CollectionRecord, body: TextQueryBody): Promise<Envelope> {
    const clock = stopwatch();
    const record = body.query_record;
    if (!record || typeof record !== 'object' || Array.isArray(record)) throw bad('query_record is required: an object with _text_data.');
    const { _text_data: text, _dominant_colors: rawColors } = record as { _text_data?: unknown; _dominant_colors?: unknown };
    if (text !== undefined && typeof text !== 'string') throw bad('query_record._text_data must be a string.');
    const colors = dominantColorsOf(rawColors);
    const filter = checkedFilter(body.filter);
    const k = body.k ?? 30;
    const from = body.from ?? 0;
    const productField = body.product_field ?? c.productField ?? undefined;

    let q: ParsedQuery;
    const legacyKana = await this.retokenising(c);
    const parsed = typeof text === 'string' ? parseQuery(text, undefined, { legacyKana }) : undefined;
    if (parsed && !parsed.ok && parsed.error.code === 'query_too_long') throw bad(parsed.error.message);
    const splits = (p: ParsedQuery) => p.language === 'de' || p.language === 'simple' || p.terms.some((t) => kanaWord.test(t));
    if (parsed?.ok) q = splits(parsed.query) ? await this.splitCompounds(c, parsed.query, legacyKana) : parsed.query;
    else if (colors) q = { text: '', language: 'simple', concepts: [], codes: [], terms: [], unread: [] };
    // "🐶" or "!!!" is no empty text: the parser says what it lacks (h338: both were told their text was empty)
    else if (parsed && !parsed.ok && parsed.error.message.startsWith('_text_data has no word')) throw bad(`query_record.${parsed.error.message}: give the words to search for (or _dominant_colors).`);
    else throw bad('query_record._text_data is empty: give the words to search for (or _dominant_colors).');
    // Without words, the colours' names form the query; beside words they only re-rank its candidates
    // (docs/api-decisions.md): as query codes they brought in records of that colour and nothing else.
    if (colors && !parsed?.ok) q = { ...q, codes: colorCodes(colors) };

    await this.products.require(c);
    const echo: Record<string, unknown> = { ...(record as Record<string, unknown>), _query_language: q.language };
    let engine = this.engineOf(c);
    let ranked: Ranked[] | undefined;
    const want = k + from;
    // Colour words rank what they name by how much of the image it covers (W of docs/api-decisions.md).
    const colorWords = [...new Set(q.concepts.filter((m) => m.concept.kind === 'color').map((m) => m.concept.name as ColorName))];
    // Colours sent without words rank by how well each record's own colours (its item's, where extracted) match
    // them, as colour words alone rank by W: the keyword score of the whole photo's colour codes ranked a salmon
    // dress whose photo held other people in navy above a navy item (h83). It breaks ties only.
    const coloursAlone = colors !== undefined && !parsed?.ok;
    const reranked = colors !== undefined || colorWords.length > 0;
    // The colour re-rank needs a pool wider than the page (widened below, up to `rerankPool`).
    const pool = reranked ? Math.max(100, 4 * want) : want;

    // Colours re-rank each fetched list before products are grouped, so a product is shown by its
    // best record after the re-rank. A CLIP-family text tower reads colour words itself.
    const rerank = async (hits: Ranked[], by: 'clip' | 'keyword'): Promise<Ranked[]> => {
      const weighedWords = by === 'clip' ? [] : colorWords;
      if (!(colors || weighedWords.length) || !hits.length) return hits;
      // Nothing but colour words: W decides, as a shopper means "blue"; beside other words, W weighs
      // half, as M does. Colours sent beside them only lower a distance (M), never weaken the words'.
      const onlyColours = onlyColorWords(q, weighedWords);
      const wordWeight = onlyColours ? 1 : 0.5;
      // Colour words alone: records whose own words name a queried colour itself (a title's "Burgundy
      // scrub top"; the family a shade implies is not enough) count as at least half that colour: the
      // seller's word outweighs a trace in the photo, a photo mostly of the colour outweighs the word.
      // Its own words only: the colours the server extracted from its photo (indexed beside them, so a colour search
      // finds the item) are not the seller's words (h105: a rose dress with 11 % denim ranked as "half blue").
      const namedCodes = onlyColours ? q.codes.filter((x) => x.weight === 1 && /^x[ck]/.test(x.code)).map((x) => x.code) : [];
      // the rows' bodies only where the records' own words are asked about (up to 16 KB each of 1,000)
      const keys = hits.map((h) => h.record.key);
      const rows = await this.store.text.colorsAndBodiesOf(this.store.store.db, keys, namedCodes.length > 0);
      const named = new Set(namedCodes.length ? hits.filter((h) => ownWordsName(h.record.data, c.productField, namedCodes, rows.get(h.record.key))).map((h) => h.record.key) : []);
      // A record's colours are its extracted _dominant_colors (its item's), else those of its whole image.
      const own = (h: Ranked) => {
        const extracted = storedColors(h.record.data._dominant_colors);
        return extracted.length ? extracted : (rows.get(h.record.key)?.colors ?? []);
      };
      const shareOf = (h: Ranked) => Math.max(colorWordShare(weighedWords, own(h)), named.has(h.record.key) ? 0.5 : 0);
      const factor = (h: Ranked, share: number) => (colors ? 1 - 0.5 * colorMatch(colors, own(h)) : 1) * (1 - wordWeight * share);
      // Colour words alone: W decides from 100 (a colour code is in most records, so its keyword
      // score says little), the keyword score only between equal shares.
      const keyword = new Map(hits.map((h) => [h.record.key, h.distance]));
      return (
        hits
          .map((h) => ({ h, share: shareOf(h) }))
          // a record of colour words alone none of whose colours is theirs, and whose own words do not name them, is
          // no answer, as a record without the thing is none for an object word: it came last at 100, the distance of
          // no match (h281: a query's word in its OCR text, a server's tag). `k` is at most what is answered (spec 2).
          .filter(({ share }) => !onlyColours || share > 0)
          .map(({ h, share }) => ({ ...h, distance: (onlyColours || coloursAlone ? 100 : h.distance) * factor(h, share) }))
          .sort((a, b) => a.distance - b.distance || keyword.get(a.record.key)! - keyword.get(b.record.key)! || a.record.key - b.record.key)
      );
    };
    /**
     * The re-ranked best `n`, the same whichever page asks. The candidates are widened ×4 until no
     * record left out could rank among them (one left out has a first distance at least the last
     * candidate's, and the re-rank multiplies it by no less than `least`), up to `rerankPool` (or
     * 4·n, when more). Each answer is then the exact order's head, or the head of the pool's order,
     * which the exact order's head is a prefix of: pages up to 250 deep are slices of one order.
     * Colour words alone start every record from 100, so no bound holds: the pool itself (the
     * keyword order counts a colour's code more often the more of the image it covers).
     */
    const exactTop = async (n: number, by: 'clip' | 'keyword', fetch: (m: number) => Promise<Ranked[]>): Promise<Ranked[]> => {
      if (!reranked) return fetch(n);
      const onlyColours = by === 'keyword' && (onlyColorWords(q, colorWords) || coloursAlone);
      const least = onlyColours ? 0 : (colors ? 0.5 : 1) * (by === 'keyword' && colorWords.length ? 0.5 : 1);
      const cap = Math.max(rerankPool, 4 * n);
      for (let m = onlyColours ? cap : Math.min(cap, Math.max(pool, 4 * n)); ; m = Math.min(cap, 4 * m)) {
        const hits = await fetch(m);
        const out = await rerank(hits, by);
        const bound = (hits[hits.length - 1]?.distance ?? 0) * least;
        if (hits.length < m || m >= cap || (out.length >= n && out[n - 1]!.distance < bound)) return out.slice(0, n);
      }
    };

    if (engine === 'clip' && q.text) {
      const { vector, model } = await this.vision.textVector(englishOf(q, typeof text === 'string' ? text : q.text));
      if (model === c.model) ranked = await onePerProduct(productField, want, c.recordCount, (n) => exactTop(n, 'clip', (m) => this.queries.knn(c, Float32Array.from(vector), m, filter).then((hits: Hit[]) => hits.map((h) => ({ record: h.record, distance: h.distance * distanceScale })))));
      else engine = 'keyword';
    } else engine = 'keyword';

    if (!ranked) {
      const present = await this.queries.present(c, q);
      // a kana or Hangul run found as the phrase of its pairs is read; the phrase itself is no word of the query
      const runs = q.runs ?? [];
      const found = (r: { word: string; phrase: string }) => present.has(r.word) || present.has(r.phrase);
      // a Korean word's stem (카드를 → 카드) is searched only when the word itself is in no record
      const unneeded = new Set(runs.filter((r) => r.stemOf !== undefined && runs.some((w) => w.word === r.stemOf && found(w))).flatMap((r) => [r.word, r.phrase]));
      if (unneeded.size) q = { ...q, terms: q.terms.filter((t) => !unneeded.has(t)), runs: runs.filter((r) => !unneeded.has(r.word)) };
      const phrases = new Map(runs.map((r) => [r.phrase, r.word]));
      const foundRuns = new Set(runs.filter((r) => found(r) && !unneeded.has(r.word)).flatMap((r) => [r.word, ...(r.stemOf ? [r.stemOf] : [])]));
      // a word is read when its other form is found (an Arabic word without its article, a Spanish plural's singular);
      // that form is no word the client typed (h156)
      const formOf = q.forms ?? {};
      const forms = new Set(Object.values(formOf).filter((b) => !Object.hasOwn(formOf, b)));
      // an earlier release's spelling, searched while rows await re-tokenising, is no word of the client's own; a word
      // found in it is read (h160: "بطاقة" and "Straße" were listed unread while they matched)
      const legacy = q.legacy ?? {};
      const foundLegacy = new Set(Object.entries(legacy).filter(([w]) => present.has(w)).map(([, now]) => now));
      // a glued run written as one word ("wifi" of "Wi-Fi") is no word of the client's; its words are read when it is found
      const joinedOf = q.joined ?? {};
      const foundJoined = new Set(Object.entries(joinedOf).flatMap(([j, parts]) => (present.has(j) ? parts : [])));
      const read = (t: string) => present.has(t) || foundLegacy.has(t) || foundJoined.has(t) || (Object.hasOwn(formOf, t) && (present.has(formOf[t]!) || foundLegacy.has(formOf[t]!)));
      // a kana run inside a word the lexicon read (シャツ of Tシャツ, searched as written too) is that word's, which was read
      const ofConcept = (t: string) => runs.some((r) => r.word === t) && q.concepts.some((m) => m.text !== t && m.text.includes(t));
      // a glued run's phrase ("b 1234" of "B-1234") is no word the client typed: its words are reported
      const glued = new Set(q.glued ?? []);
      const unreadTerms = [...q.terms.filter((t) => !glued.has(t) && !Object.hasOwn(joinedOf, t) && !forms.has(t) && !Object.hasOwn(legacy, t) && !read(t) && !foundRuns.has(t) && !(phrases.has(t) && phrases.get(t) !== t) && !ofConcept(t)), ...q.unread];
      if (unreadTerms.length) echo._unread_terms = unreadTerms;
      // a thing the query names (an object, a garment) that no record shows nor names: the answers then match the query's
      // other words only, which reads as a broken search unsaid (h141: "blue bed" answered a blue clock)
      const things = q.concepts.filter((m) => m.concept.kind === 'object' || m.concept.kind === 'item');
      if (things.length) {
        const literal = q.literals?.length ? await this.queries.present(c, { ...q, codes: [], terms: q.literals }) : new Set<string>();
        const codeOf = (m: (typeof things)[number]) => (m.concept.kind === 'object' ? objectCode(m.concept.name as CocoLabel) : itemCode(m.concept.name as ItemKind));
        const unmatched = [...new Set(things.filter((m) => !present.has(codeOf(m)) && !m.text.split(' ').every((w) => literal.has(w) || literal.has(q.literalRuns?.[w] ?? w))).map((m) => m.text))];
        if (unmatched.length) echo._unmatched_terms = unmatched;
      }
      if (q.codes.length === 0 && !q.terms.some((t) => present.has(t))) {
        return {
          status: status(
            ctx,
            422,
            q.unread.length
              ? `Query not understood: none of its first ${maxQueryWords} words is in the object and colour vocabulary (${lexiconLanguages.join(', ')}) or in this collection's records, and the ${q.unread.length} after them were not read (_unread_terms); put the words that matter first`
              : `Query not understood: no word of "${typeof text === 'string' ? text : ''}" is in the object and colour vocabulary (${lexiconLanguages.join(', ')}) or in this collection's records`,
          ),
          query_records: [{ ...echo, _text_engine: engine }],
          answer_records: [],
          answer_distances: [],
          answer_count: 0,
          statistics: clock.done(),
        };
      }
      const textMemo = {};
      const byKeyword = (m: number) => this.queries.text(c, q, m, filter, textMemo).then((hits: TextHit[]) => hits.map((h) => ({ record: h.record, distance: keywordDistance(h.score) })));
      // An object word is also looked for by the look of its first answers (look-expansion.ts); beside colours, which
      // re-rank by their own measure, it is not.
      // Only where the query is its object words alone: the look knows nothing of its other words, and a photo that
      // matched none of them outranked a record holding one ("Lufthansa airplane": an untitled airplane above a record
      // titled Lufthansa, h313). Nor on fashion and home-decor collections, whose vectors are a record's item (a garment,
      // a piece of furniture), not the whole photo the detector named the object in: the look of "dog" would be a dress's.
      const objectOnly = !reranked && c.type !== 'fashion' && c.type !== 'homedecor' && q.concepts.every((m) => m.concept.kind === 'object') && !q.terms.some((t) => !ofConcept(t) && (read(t) || foundRuns.has(t)));
      const objectCodes = objectOnly ? [...new Set(q.concepts.map((m) => objectCode(m.concept.name as CocoLabel)))] : [];
      const memo = {};
      ranked = await onePerProduct(productField, want, c.recordCount, (n) => exactTop(n, 'keyword', objectCodes.length ? (m) => this.withLook(c, filter, objectCodes, byKeyword, m, memo) : byKeyword));
    }

    const page = ranked.slice(from, want);
    return {
      status: status(ctx, 200, 'OK'),
      query_records: [{ ...echo, _text_engine: engine }],
      answer_records: page.map((h) => project(h.record, body.fields_to_return as Fields, ['_id'])),
      answer_distances: page.map((h) => round4(h.distance)),
      answer_count: page.length,
      statistics: clock.done(),
    };
  }}
