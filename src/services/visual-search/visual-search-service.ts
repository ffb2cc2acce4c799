import type { Change, CollectionQueries, Filter, Hit, IndexLoadState } from '../../index/collection-queries.ts';
import { ImageLoadError } from '../../media/image-load-error.ts';
import { CollectionGone, type CollectionRecord, type CollectionStore, type StoredRecord } from '../../store/collection-store.ts';
import { compileFilter } from '../../store/filters/mongo-filter.ts';
import { inexactRecordProblem } from '../../util/exact-numbers.ts';
import { echo, sharedCode, status, stopwatch, type EnvelopeStatus, type SearchContext, type Statistics } from '../envelope.ts';
import { ServiceError } from '../errors.ts';
import { maxRecordFieldBytes } from '../record-limits.ts';
import { failure, type InputRecord, type Outcome, type VisionService } from '../vision-service.ts';
import { VisionTaskError } from '../../vision/engine/vision-engine.ts';
import type { TextRow } from '../../store/collection-text-store.ts';
import { recordText } from '../../text-search/record-text.ts';
import { textEngineOf } from '../text-search/text-engine.ts';
import { categoriesOf, wantedItems } from '../fashion/taxonomy.ts';
import { ProductRule } from '../fashion/product-rule.ts';
import { boxArea, type ItemDomain } from '../../vision/fashion/item-regions.ts';
import type { ImageTaskResults } from '../../vision/engine/vision-tasks.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { clientCancelled } from '../../util/download-scope.ts';
import type { AccountService } from '../account-service.ts';
import { colorMatch, dominantColorsProblem, storedColors, type DominantColorsQuery } from '../text-search/color-match.ts';
import { seenText, TOKENS_VERSION, type Observed, type SeenPart } from '../../text-search/seen-tokens.ts';
import { pathConflict, setPath } from '../record-paths.ts';
import { skipped, badId, notAnObject, queryFailed, mismatch, whileExists, type Envelope } from './answers.ts';
import { filterFields, checkedFilter, filterFailuresAre400, matchesEverything } from './filters.ts';
import { distanceScale, scaled, rawRadius, onePerProduct, tieStable } from './hits.ts';
import { itemCategories, categoryFilter, filterCategories, colorTagsOf, serverTagsSimple, serverTags, serverColors, sentValue, suppliesAll, parsedBox, drawnBox, boxOutside, recordBox, serversObject, categoryProblem, isObjectList, checkCategories, queryColors, withItemFilter } from './items.ts';
import type { RecordThumbnails } from './record-thumbnails.ts';
import { dollarProblem, project, tagField, stringsOf, stringListOrNone, tagsOf, recordTags, attributes, ID_FORM, idOf, sentId, type Fields, type Out } from './record-fields.ts';

/** How many of the nearest records visualTagsKNN re-ranks by tags and colours (docs/api-decisions.md). */
const RERANKED = 500;

/**
 * The `bmh1` bits (of 256) within which two images are near duplicates at a radius: 16 at the spec's
 * default 5, none but identical hashes at 0, at most 32 (docs/api-decisions.md `nearDuplicates`;
 * chosen on 518 photos and copies of 173 of them, `docs/visual-hashes.md`).
 */
export function nearDuplicateBits(radius: number): number {
  return Math.min(32, Math.round(radius * 3.2));
}

/** Whether a `bmh1` hash lies further than `bits` from both blank hashes (all 0, all 1). */
function patterned(hash: string, bits: number): boolean {
  let ones = 0;
  for (let i = 0; i < hash.length; i++) if (hash.charCodeAt(i) === 49) ones++;
  return ones > bits && ones < hash.length - bits;
}

/** A query image resolved: its vector, what is echoed, and for item collections the default filter and its colours. */
interface QueryVector {
  vector: Float32Array;
  /** The `bmh1` visual hash of what the vector describes, when known (near duplicates). */
  hash?: string;
  echo: Out;
  itemFilter?: Record<string, unknown>;
  colors?: DominantColorsQuery;
  /** The tags a query without its own ranks by: a fashion or home-decor photo's item's (fashion tagging), or a stored record's own (its type's tag field). */
  tags?: string[];
  /** A search by a stored record's `_id`: that record's key (first among the answers at distance 0). */
  self?: number;
}

/**
 * The tags visualTagsKNN ranks by: the query's own tag field; on fashion and home-decor
 * collections, when the query sends none, its item's generated tags (spec 2, visualTagsKNN:
 * "`_tags_simple` (generated automatically by fashion tagging)").
 */
function queryTags(c: CollectionRecord, query: InputRecord, sent: string[], q: QueryVector): string[] {
  const absent = query[tagField[c.type]] === undefined || query[tagField[c.type]] === null;
  return absent && q.tags ? q.tags : sent;
}

/** What an insert has done so far, per record. */
interface Tally {
  answers: Out[];
  skips: Out[];
  duplicates: number;
  /** nearDupsInsert's records skipped as near duplicates of stored ones */
  near: number;
  capacityHit: boolean;
  /** The record each skip answers, to list the skips in request order at the end */
  skipped: Map<Out, InputRecord>;
}
const newTally = (): Tally => ({ answers: [], skips: [], duplicates: 0, near: 0, capacityHit: false, skipped: new Map() });
const skip = (t: Tally, record: InputRecord, out: Out): number => {
  t.skipped.set(out, record);
  return t.skips.push(out);
};

/** The collection methods of spec 2 §4 over CollectionStore (writes) and CollectionQueries (reads). */

export class VisualSearchService {
  private readonly queries: CollectionQueries;
  private readonly products: ProductRule;

  constructor(
    private readonly store: CollectionStore,
    queries: CollectionQueries,
    private readonly vision: VisionService,
    /** What text search looks for in each stored image (LOUPE_SEEN). */
    private readonly seen: readonly SeenPart[] = [],
    /** Charges fashion's extra per-record work (`extract_colors`, `extract_tags`). */
    private readonly accounts?: AccountService,
    /** The fashion rule 4 check, shared with text search (one count per collection change). */
    products?: ProductRule,
    /** Records' thumbnails in the media folder (absent: none made, none served). */
    private readonly thumbnails?: RecordThumbnails,
  ) {
    this.queries = filterFailuresAre400(queries);
    this.products = products ?? new ProductRule(this.queries);
  }

  /**
   * Descriptors of records to store. Collections text search reaches also get what the server
   * saw in each image (the `index` task); custom collections have no text search, so only the
   * descriptor is made.
   */
  private embedForStore(c: CollectionRecord, records: InputRecord[], inserting: boolean): Promise<(Outcome<'embed'> | Outcome<'index'> | Outcome<'item'>)[]> {
    // the stored record's picture, made where its image is decoded for the descriptor (record-thumbnails.ts)
    const thumbnail = this.thumbnails?.edge ? { thumbnail: this.thumbnails.edge } : {};
    if (c.type === 'custom') return this.vision.each('embed', records, thumbnail);
    if (c.type === 'fashion' || c.type === 'homedecor') {
      const domain = c.type;
      return this.vision.each('item', records, (r) => {
        const box = recordBox(r, inserting);
        const drawn = box !== undefined && !serversObject(Array.isArray(r._objects) ? r._objects[0] : undefined);
        return { seen: [...this.seen], domain, wanted: wantedItems(domain, r['Top Category'], r.Category), ...(box ? { boundBox: box, drawn } : {}), ...thumbnail };
      });
    }
    return this.vision.each('index', records, { seen: [...this.seen], ...thumbnail });
  }

  /**
   * `extract_colors` and `extract_tags` are billed per record that asks (spec: "additionally
   * billed"), before any work, so a short account is refused (402) before images are fetched;
   * records that are then not stored are refunded.
   */
  /**
   * The extras of `records` (the records the call takes) charged, with the call's own price in the same debit where
   * the route left it to the service (`ctx.extras.call`: one debit, so parallel calls cannot each take the price and
   * then all fail on their extras, h92); `refund` gives back the extras of records not stored.
   */
  private async chargeExtras(ctx: SearchContext, c: CollectionRecord, records: InputRecord[]): Promise<{ refund(records: InputRecord[]): Promise<void> }> {
    const e = ctx.extras;
    const none = { refund: async () => {} };
    if (!e || !this.accounts) return none;
    const items = c.type === 'fashion' || c.type === 'homedecor';
    // a flag whose every output the record supplies itself (kept as sent) does no work and is not billed
    const billed = (r: InputRecord, f: 'extract_colors' | 'extract_tags') => r[f] === true && !suppliesAll(r, f);
    const priceOf = (r: InputRecord) => (!items ? 0 : (billed(r, 'extract_colors') ? (e.prices['visual_search.extract_colors'] ?? 0) : 0) + (billed(r, 'extract_tags') ? (e.prices['visual_search.extract_tags'] ?? 0) : 0));
    const extras = records.reduce((n, r) => n + priceOf(r), 0);
    // nothing to take (every record refused, repeated or stored): the answer is its 4xx, free, whatever the balance
    // (a retried batch at a balance of 0 was 402 rather than 411, h102)
    const call = records.length ? (e.call?.price ?? 0) : 0;
    if (extras + call <= 0) return none;
    const key = e.call ? (extras > 0 ? `${e.call.priceKey} with its extract_colors/extract_tags` : e.call.priceKey) : 'visual_search.extract_colors/extract_tags';
    await this.accounts.charge(e.accountId, key, call + extras);
    return { refund: async (back) => this.accounts!.refund(e.accountId, back.reduce((n, r) => n + priceOf(r), 0)) };
  }

  /**
   * Why a record cannot be stored, or undefined. Fashion and home-decor collections group a
   * product's images by the product field, and every record must carry it (spec rule 4): a
   * non-empty string or a number, since an empty or structured id would group unrelated images.
   * The fields the spec types (`tags`, `_tags_simple`: arrays of strings; `extract_colors`,
   * `extract_tags`: booleans) are refused in another type rather than stored and ignored.
   */
  private recordProblem(c: CollectionRecord, record: Record<string, unknown>, sent: Record<string, unknown> = record): string | undefined {
    // a field's own shape said first (`_objects[0].Category: {$ne: 1}` is a category that is not a string), then its names
    return this.recordShapeProblem(c, record, sent) ?? dollarProblem(sent);
  }

  private recordShapeProblem(c: CollectionRecord, record: Record<string, unknown>, sent: Record<string, unknown>): string | undefined {
    const inexact = inexactRecordProblem(record);
    if (inexact) return inexact;
    const { _base64: _image, ...fields } = record;
    const bytes = Buffer.byteLength(JSON.stringify(fields));
    if (bytes > maxRecordFieldBytes) return `the record's fields take ${Math.ceil(bytes / 1024)} KiB of JSON; at most ${maxRecordFieldBytes / 1024} KiB (the image not counted)`;
    for (const flag of ['extract_colors', 'extract_tags']) {
      const v = record[flag];
      if (v !== undefined && v !== null && typeof v !== 'boolean') return `${flag} must be true or false`;
    }
    // the tag field of each type as the spec types it (custom's `_tags` too, which visualTagsKNN reads as a list)
    const lists = c.type === 'custom' ? ['tags', '_tags_simple', '_tags'] : ['tags', '_tags_simple'];
    for (const list of lists) if (!stringListOrNone(record[list])) return `${list} must be an array of strings`;
    // the spec types the image's size as integers: a record's own may be given, in that type
    for (const side of ['_width', '_height']) {
      const v = sent[side];
      if (v !== undefined && v !== null && !(Number.isSafeInteger(v) && (v as number) >= 0)) return `${side} must be a whole number of pixels (0 or more)`;
    }
    // the spec's typed colours, which colour search ranks by: held to the shape a text query's must have
    // (what is sent: a record stored before this rule updates as before)
    const colours = dominantColorsProblem(sent._dominant_colors);
    if (colours) return `_dominant_colors${colours}`;
    if (c.type !== 'fashion' && c.type !== 'homedecor') return undefined;
    // what is sent, as for the colours: the categories choose the item and filter every search from the record
    const categories = categoryProblem(sent);
    if (categories) return categories;
    // the items the server found, which the category vote reads: a client may send them back, in their shape
    const objects = sent._objects;
    if (objects !== undefined && objects !== null && !isObjectList(objects)) return '_objects must be a list of objects';
    // a box the client drew is the item stored (rule 7, as for a query): held to a box's shape
    const first = Array.isArray(objects) ? (objects[0] as Record<string, unknown> | undefined) : undefined;
    const box = first ? parsedBox(first.bound_box, '_objects[0].bound_box') : undefined;
    if (typeof box === 'string') return box;
    // its categories and name become the item's when the record names none: held as the record's are
    const objectCategories = box ? categoryProblem(first) : undefined;
    if (objectCategories) return `_objects[0].${objectCategories}`;
    const name = first?.name;
    if (box && name !== undefined && name !== null && (typeof name !== 'string' || name.trim() === '' || name.length > 100)) return '_objects[0].name must be a non-empty string of at most 100 characters';
    if (!c.productField) return undefined;
    const v = Object.hasOwn(record, c.productField) ? record[c.productField] : undefined;
    if (v === undefined || v === null) return `${c.productField} is required in this collection`;
    if (typeof v === 'string' ? v.trim() === '' : !(typeof v === 'number' && Number.isFinite(v))) return `${c.productField} must be a non-empty string or a number`;
    return undefined;
  }

  /**
   * Categories for an item its record did not name (issue 20): a vote of the 15 nearest records
   * of the same item kind, or stored by their whole image, whose categories their own records or the detector gave, weighted
   * 1/distance, kept when the winner holds at least half the weight; so a shop's own taxonomy comes back where its records
   * near the item hold it.
   */
  private async vote(c: CollectionRecord, vector: Float32Array, itemName: string, except?: string): Promise<{ top: unknown; category: unknown } | undefined> {
    if (!c.dimensions || vector.length !== c.dimensions) return undefined;
    // records stored by their whole image vote too (a statue, a lamp, a product on white: most of a decor shop, whose
    // categories name no kind the detector sees): a Buddha statue seen as a bed at 0.4 was filtered to the shop's beds,
    // its own record, categorised Decor/Statue, shut out (h253) — but only those as near as the nearest record of any
    // kind: farther ones outvoted the photo's own record in a shop of prints on white (h255), and a fixed radius left
    // out the same statue photographed anew (h256); searched apart, so they never take the item kind's places
    // Records categorised by the detector vote too, for its categories: one record a client categorised, the only voter,
    // carried every later photo of its kind to its category and filtered the nearer records the detector had
    // categorised out of the answers (h265). Records given a vote's categories do not vote: a vote is not evidence.
    const voter = (name: string) => ({ '_objects.name': name, '_objects.category_source': { $in: ['record', 'detector'] } });
    const nearest = itemName === 'item' ? undefined : (await this.queries.knn(c, vector, 2)).find((h) => h.record.recordId !== except);
    const [kind, whole] = await Promise.all([
      this.queries.knn(c, vector, 16, voter(itemName)),
      nearest ? this.queries.knn(c, vector, 16, voter('item')) : Promise.resolve([]),
    ]);
    const hits = [...kind, ...whole.filter((h) => h.distance <= nearest!.distance + 1e-9)]
      .filter((h) => h.record.recordId !== except)
      .sort((a, b) => a.distance - b.distance)
      .slice(0, 15);
    const weights = new Map<string, { w: number; top: unknown; category: unknown; shops: boolean }>();
    let total = 0;
    for (const h of hits) {
      const top = h.record.data['Top Category'];
      const category = h.record.data.Category;
      // a record whose categories were taken away (before the update that predicts them again) votes for none
      if (typeof top !== 'string' && typeof category !== 'string') continue;
      const key = JSON.stringify([top ?? null, category ?? null]);
      const w = 1 / (h.distance + 1e-3);
      total += w;
      const e = weights.get(key) ?? { w: 0, top, category, shops: false };
      e.w += w;
      const item = (h.record.data._objects as Record<string, unknown>[] | undefined)?.[0];
      e.shops ||= item?.category_source === 'record';
      weights.set(key, e);
    }
    const best = [...weights.values()].sort((a, b) => b.w - a.w)[0];
    // won by the detector's own categories (no record the shop categorised among its voters): the detector's, said so
    return best && best.shops && best.w >= 0.5 * total ? { top: best.top, category: best.category } : undefined;
  }

  /** The votes of the records of one insert or update that name no categories (item collections only). */
  private async votes(c: CollectionRecord, records: InputRecord[], outcomes: (Outcome<'embed'> | Outcome<'index'> | Outcome<'item'>)[]): Promise<({ top: unknown; category: unknown } | undefined)[]> {
    const out: ({ top: unknown; category: unknown } | undefined)[] = [];
    for (const [i, o] of outcomes.entries()) {
      const r = records[i]!;
      const named = typeof r['Top Category'] === 'string' || typeof r.Category === 'string';
      out.push('ok' in o && 'items' in o.ok && !o.ok.whole && o.ok.chosen.name !== 'item' && !named ? await this.vote(c, Float32Array.from(o.ok.descriptor), o.ok.chosen.name) : undefined);
    }
    return out;
  }

  /**
   * A fashion or home-decor record's item (spec rules 2 and 3): `_objects` holds the item it is
   * stored by, and its categories are the record's own when it sent them (marked pre-filled),
   * else the detector's, which become the record's too. `extract_colors` and `extract_tags` add
   * the item's colours and tags; a `_dominant_colors`, `_tags` or `_tags_simple` the record sent is
   * kept as sent (rule 3: nothing a client sends is replaced), the flag making only the others.
   */
  private itemFields(c: CollectionRecord, record: InputRecord, r: ImageTaskResults['item'], inserting: boolean, voted?: { top: unknown; category: unknown }): Out {
    const domain = c.type as ItemDomain;
    const sentTop = record['Top Category'];
    const sentCategory = record.Category;
    const sent = typeof sentTop === 'string' || typeof sentCategory === 'string';
    // a box the client drew is the item (within the image), marked as the client's
    const drawn = recordBox(record, inserting);
    // an object the client sent with its box may name the item and its categories (one copied from a
    // response does): they are the item's when the record names none (they were dropped, and the item
    // stored as a nameless `item` no category search could find)
    const first = drawn && Array.isArray(record._objects) ? (record._objects[0] as Record<string, unknown>) : undefined;
    const objectNamed = !sent && first !== undefined && (typeof first['Top Category'] === 'string' || typeof first.Category === 'string');
    const carried = objectNamed ? { top: first['Top Category'], category: first.Category, source: first.category_source === 'detector' || first.category_source === 'neighbours' ? first.category_source : 'record' } : undefined;
    const detected = r.whole ? undefined : categoriesOf(domain, r.chosen.name);
    const predicted = carried ?? voted ?? detected;
    const categories: { 'Top Category'?: unknown; Category?: unknown } = sent ? { 'Top Category': sentTop, Category: sentCategory } : predicted ? { 'Top Category': predicted.top, Category: predicted.category } : {};
    const box = drawn ? ([drawn[0], drawn[1], Math.min(drawn[2], r.width), Math.min(drawn[3], r.height)] as [number, number, number, number]) : r.chosen.box;
    const itemName = carried && typeof first?.name === 'string' && first.name.trim() ? first.name.trim() : r.chosen.name;
    const object = {
      id: '0',
      name: itemName,
      prob: r.chosen.prob,
      bound_box: box,
      area: boxArea(box),
      ...categories,
      ...(sent ? { category_source: 'record', 'pre-filled': true } : carried ? { category_source: carried.source } : voted ? { category_source: 'neighbours' } : predicted ? { category_source: 'detector' } : {}),
      ...(drawn ? { 'pre-filled': true } : {}),
    };
    const out: Out = { _objects: [object], ...(sent ? {} : categories) };
    const colors = r.colors.slice(0, 5);
    if (record.extract_colors === true && !sentValue(record, '_dominant_colors')) {
      out._dominant_colors = { luv_colors: colors.map((x) => x.luv.map((v) => Math.round(v * 100) / 100)), percentages: colors.map((x) => x.percentage), names: colors.map((x) => x.name), colors: colors.map((x) => x.color) };
    }
    if (record.extract_tags === true) {
      const colorTags = colorTagsOf(colors);
      if (!sentValue(record, '_tags')) out._tags = {
        // The record's own categories are marked on their entries; the item and colours are always measured.
        ...(categories['Top Category'] !== undefined ? { 'Top Category': [{ name: categories['Top Category'], prob: sent ? 1 : r.chosen.prob, ...(sent ? { 'pre-filled': true } : {}) }] } : {}),
        ...(categories.Category !== undefined ? { Category: [{ name: categories.Category, prob: sent ? 1 : r.chosen.prob, ...(sent ? { 'pre-filled': true } : {}) }] } : {}),
        Item: [{ name: itemName, prob: r.chosen.prob }],
        Color: colorTags.Color,
      };
      if (record._tags_simple === undefined) out._tags_simple = [itemName, ...colorTags.names];
    }
    return out;
  }

  private apply(c: CollectionRecord, change: Change): void {
    this.queries.applied(c, change);
  }

  async ping(ctx: SearchContext, c: CollectionRecord): Promise<Envelope> {
    const clock = stopwatch();
    // an empty collection has no descriptor size yet: said so, not as "not yet known-d"
    const index = c.dimensions ? `HNSW index over ${c.dimensions}-d ${c.model ?? 'descriptors'}` : 'HNSW index, its descriptors\' size set by the first record';
    const info = `${c.type} collection "${c.name}": ${c.recordCount} records, ${index} (cosine distance × ${distanceScale})${indexStateNote(this.queries.loadState(c))}`;
    if (c.type === 'custom') return { status: status(ctx, 200, 'OK'), info, statistics: clock.done() };
    const text = await this.textSearchState(c);
    return { status: status(ctx, 200, 'OK'), info: `${info}; ${text.summary}`, text_search: text.state, statistics: clock.done() };
  }

  /** Which text engine answers and how far the server has looked at the images (ping, the backfill's progress). */
  private async textSearchState(c: CollectionRecord): Promise<{ summary: string; state: Record<string, unknown> }> {
    const engine = textEngineOf(c, this.vision.hasTextModel);
    const p = await this.store.text.progress(this.store.store.db, c.id);
    const withText = p.done + p.pending + p.no_image + p.failed;
    // Records stored before text search existed have no row until the backfill's first phase.
    const pending = p.pending + Math.max(0, c.recordCount - withText);
    const index = this.store.store.dialect === 'sqlite' ? 'SQLite FTS5 BM25' : 'PostgreSQL full-text search, BM25';
    const parts = this.seen.length ? this.seen.join(', ') : 'nothing (LOUPE_SEEN=none): records are found by their own words only';
    const how = engine === 'clip' ? 'CLIP text tower against the image vectors' : `keyword engine (${index}; looks for ${parts}; record text)`;
    const hint = engine === 'keyword' && this.vision.hasTextModel ? '; a CLIP pack is active but this collection holds other vectors: re-index it to search with CLIP' : '';
    // rows an older release tokenised, made again in the background after an upgrade: searches meanwhile also look for the old tokens
    const older = await this.store.text.olderTokens(this.store.store.db, c.id, TOKENS_VERSION);
    const retokenising = older ? `; ${older} row${older === 1 ? '' : 's'} tokenised by an earlier release, being made again` : '';
    const summary = `text search: ${how}${hint}; seen content ${p.done} of ${c.recordCount} records (${pending} pending, ${p.no_image} without a stored image, ${p.failed} failed)${retokenising}`;
    return { summary, state: { engine, seen: p.done, pending, no_image: p.no_image, failed: p.failed, records: c.recordCount, retokenising: older } };
  }

  async insert(ctx: SearchContext, c: CollectionRecord, records: InputRecord[], fields: Fields): Promise<Envelope> {
    const clock = stopwatch();
    const tally = newTally();
    const candidates = await this.admissible(ctx, c, records, tally);
    const extras = await this.chargeExtras(ctx, c, candidates.map((x) => x.record));
    try {
      const embedded = candidates.length ? await this.embedForStore(c, candidates.map((x) => x.record), true) : [];
      await this.storeEmbedded(ctx, c, candidates, embedded, fields, tally);
    } catch (err) {
      await extras.refund(candidates.map((x) => x.record));
      throw err;
    }
    const stored = new Set(tally.answers.map((a) => a._id));
    await extras.refund(candidates.filter((x) => !stored.has(x.id)).map((x) => x.record));
    return this.inserted(ctx, clock, records, tally);
  }

  /**
   * The records an insert may take: an `_id` of the right form, not repeated in the request and
   * not stored yet. The others are skipped before any image is fetched.
   */
  /** `refuseWhenFull`: false for nearDupsInsert, whose near duplicates name the stored record they match even when the collection is full (h115). */
  private async admissible(ctx: SearchContext, c: CollectionRecord, records: InputRecord[], tally: Tally, refuseWhenFull = true): Promise<{ record: InputRecord; id: string }[]> {
    const seen = new Set<string>();
    const candidates: { record: InputRecord; id: string }[] = [];
    for (const record of records) {
      const not = notAnObject(ctx, record, 'a record with _id and _url, _base64 or _file');
      if (not) {
        skip(tally, record, not);
        continue;
      }
      const id = idOf(record);
      const missing = this.recordProblem(c, record);
      if (id === undefined) skip(tally, record, skipped(ctx, { ...echo(record), ...sentId(record) }, 400, typeof record._id === 'number' && Number.isInteger(record._id) && missing ? missing : `_id ${record._id === undefined || record._id === null ? 'is required:' : 'must be'} ${ID_FORM}`));
      else if (missing) skip(tally, record, skipped(ctx, echo(record), 400, missing));
      else if (seen.has(id)) {
        tally.duplicates++;
        skip(tally, record, skipped(ctx, echo(record), 411, `_id ${id} appears twice in the request`));
      } else {
        seen.add(id);
        candidates.push({ record, id });
      }
    }
    const existing = new Set((await this.store.getByIds(c.id, candidates.map((x) => x.id))).map((r) => r.recordId));
    const fresh = candidates.filter((x) => {
      if (!existing.has(x.id)) return true;
      tally.duplicates++;
      skip(tally, x.record, skipped(ctx, echo(x.record), 411, `_id ${x.id} already exists`));
      return false;
    });
    // A full collection refuses before any image is looked at: a loader retrying 412s spent the vision engine's time on
    // each (h114). The count is the request's start's; the store's own check at insert stays the one that holds.
    if (refuseWhenFull && fresh.length && c.recordCount >= c.capacity) {
      tally.capacityHit = true;
      for (const x of fresh) skip(tally, x.record, skipped(ctx, echo(x.record), 412, `the collection is full (capacity ${c.capacity} records)`));
      return [];
    }
    return fresh;
  }

  /** Stores records already embedded (`embedded[i]` belongs to `candidates[i]`) and indexes them. */
  private async storeEmbedded(ctx: SearchContext, c: CollectionRecord, candidates: { record: InputRecord; id: string }[], embedded: (Outcome<'embed'> | Outcome<'index'> | Outcome<'item'>)[], fields: Fields, tally: Tally): Promise<void> {
    const rows: { recordId: string; data: Record<string, unknown>; vector: Float32Array; hash: string | null; text?: TextRow; thumbnailKey?: string | null }[] = [];
    const thumbnails: (ArrayBuffer | undefined)[] = [];
    // Each row's record as sent: a skipped record is answered with its fields (spec 2 §2, skipped_records).
    const sent: InputRecord[] = [];
    const voted = c.type === 'fashion' || c.type === 'homedecor' ? await this.votes(c, candidates.map((x) => x.record), embedded) : [];
    let model = c.model;
    embedded.forEach((o, i) => {
      const x = candidates[i]!;
      if ('error' in o) return skip(tally, x.record, skipped(ctx, echo(x.record), o.error.code, o.error.text));
      if (model !== null && o.ok.model !== model) return skip(tally, x.record, skipped(ctx, echo(x.record), 409, mismatch(model, o.ok.model)));
      const outside = 'items' in o.ok ? boxOutside(recordBox(x.record, true), o.ok) : undefined;
      if (outside) return skip(tally, x.record, skipped(ctx, echo(x.record), 400, outside));
      model = o.ok.model;
      // `_id` is kept in the stored document too, so filters on `_id` work on both backends.
      const data = { _id: x.id, ...attributes(x.record), ...('items' in o.ok ? this.itemFields(c, x.record, o.ok, true, voted[i]) : {}) };
      const observed = 'observed' in o.ok ? o.ok.observed : undefined;
      rows.push({ recordId: x.id, data, vector: Float32Array.from(o.ok.descriptor), hash: o.ok.hash ?? null, ...(c.type === 'custom' ? {} : { text: this.textRow(c, data, observed) }) });
      thumbnails.push(o.ok.thumbnail);
      sent.push(x.record);
    });
    if (!rows.length) return;
    const keys = (await this.thumbnails?.write(thumbnails)) ?? [];
    keys.forEach((k, i) => (rows[i]!.thumbnailKey = k));
    const { outcomes } = await whileExists(c, this.store.insert(c.id, rows, model!)).catch(async (err: unknown) => {
      await this.removeMedia(keys);
      throw err;
    });
    outcomes.forEach((o, i) => {
      const row = rows[i]!;
      if ('key' in o) {
        const stored = { key: o.key, recordId: row.recordId, data: row.data };
        this.apply(c, { kind: 'upsert', record: stored, vector: row.vector, hash: row.hash, seq: o.seq });
        tally.answers.push(project(stored, fields, ['_id']));
      } else if (o.refused === 'duplicate') {
        tally.duplicates++;
        skip(tally, sent[i]!, skipped(ctx, echo(sent[i]!), 411, `_id ${row.recordId} already exists`));
      } else {
        tally.capacityHit = true;
        skip(tally, sent[i]!, skipped(ctx, echo(sent[i]!), 412, `the collection is full (capacity ${c.capacity} records)`));
      }
    });
    // a record refused (its _id stored meanwhile, the collection full) names no file; removed after the records are
    // applied, so that no other write is applied between this one's commit and its own (h361)
    await this.removeMedia(keys.filter((_, i) => !('key' in outcomes[i]!)));
  }

  /**
   * A record's text search row: its own words, and what was seen in its image when it was looked
   * at (`observed`); without one the row waits for the backfill (`pending`).
   */
  private textRow(c: CollectionRecord, data: Record<string, unknown>, observed: Observed | undefined, previous?: TextRow): TextRow {
    const { body, lang } = recordText(data, c.productField);
    if (observed) {
      const t = seenText(observed);
      return { seen: t.seen, body, ocr: t.ocr, lang, colors: t.colors, observed, seenVersion: TOKENS_VERSION, seenState: 'done' };
    }
    if (previous) return { ...previous, body, lang };
    return { seen: '', body, ocr: '', lang, colors: [], observed: null, seenVersion: 0, seenState: 'pending' };
  }

  /** 210 all inserted, 211 some, 412 none for lack of room, 411 none as all existed, else 400. */
  private inserted(ctx: SearchContext, clock: { done(): Statistics }, records: InputRecord[], t: Tally): Envelope {
    const asked = records.length;
    const n = t.answers.length;
    // skips are found in stages (form, repeats, stored ids, images, room): answered in request order
    const at = new Map(records.map((r, i) => [r, i]));
    t.skips.sort((a, b) => (at.get(t.skipped.get(a)!) ?? 0) - (at.get(t.skipped.get(b)!) ?? 0));
    // every record already stored, by _id or (nearDupsInsert) as a near duplicate: "Response as insert", 411
    const code = n === asked ? 210 : n ? 211 : t.capacityHit ? 412 : t.duplicates + t.near === asked ? 411 : 400;
    const text = { 210: 'Inserted', 211: 'Some records were not inserted', 411: t.near ? 'All records already exist or are near duplicates of stored records' : 'All records already exist', 412: 'Storage capacity exceeded', 400: 'No record was inserted' }[code]!;
    return { status: status(ctx, code, text), answer_records: t.answers, skipped_records: t.skips, answer_count: n, statistics: clock.done() };
  }

  /**
   * get/delete/update answer 205 (or 220 for delete) when all were done, 206 for some, and for none
   * the skips' own code when they share one (400 when every `_id` was of the wrong form), else 404.
   */
  private foundStatus(ctx: SearchContext, done: number, asked: number, allCode: number, skips: Out[], partial: string): EnvelopeStatus {
    if (done === asked && asked > 0) return status(ctx, allCode, allCode === 220 ? 'Deleted' : 'All found');
    if (done > 0) return status(ctx, 206, partial);
    const code = sharedCode(skips.map((k) => (k._reason as { status: { code: number } }).status));
    if (code === 404 || !skips.length) return status(ctx, 404, 'No record was found');
    // codes differing (an _id not found beside one of the wrong form) share 400: say what each skip says
    const every = skips.every((k) => (k._reason as { status: { code: number } }).status.code === 400);
    return status(ctx, code, skips.length === asked && code === 400 ? (every ? 'No record was done: every _id was of the wrong form' : 'No record was done: each _id was of the wrong form or not found (see each record\'s _reason)') : 'No record was done');
  }

  async get(ctx: SearchContext, c: CollectionRecord, records: { _id?: unknown }[], fields: Fields): Promise<Envelope> {
    const clock = stopwatch();
    const ids = records.map(idOf);
    const found = new Map((await this.store.getByIds(c.id, ids.filter((x): x is string => x !== undefined))).map((r) => [r.recordId, r]));
    const answers = ids.flatMap((id) => (id !== undefined && found.has(id) ? [project(found.get(id)!, fields, ['*'])] : []));
    const skips = records.flatMap((r, i) => (ids[i] === undefined ? [badId(ctx, r)] : !found.has(ids[i]!) ? [skipped(ctx, sentId(r), 404, 'not found')] : []));
    return { status: this.foundStatus(ctx, answers.length, records.length, 205, skips, 'Some records were not found'), answer_records: answers, skipped_records: skips, answer_count: answers.length, statistics: clock.done() };
  }

  async delete(ctx: SearchContext, c: CollectionRecord, records: { _id?: unknown }[]): Promise<Envelope> {
    const clock = stopwatch();
    const ids = records.map(idOf);
    const { deleted, first, seq, media } = await whileExists(c, this.store.deleteByIds(c.id, ids.filter((x): x is string => x !== undefined)));
    if (deleted.length) this.apply(c, { kind: 'delete', keys: deleted.map((d) => d.key), seq, from: first });
    await this.removeMedia(media);
    const gone = new Set(deleted.map((d) => d.recordId));
    // one answer per record asked for, as get gives: an `_id` sent twice is answered twice, not dropped
    const answers = ids.flatMap((id) => (id !== undefined && gone.has(id) ? [{ _id: id }] : []));
    const skips = records.flatMap((r, i) => (ids[i] === undefined ? [badId(ctx, r)] : !gone.has(ids[i]!) ? [skipped(ctx, sentId(r), 404, 'not found')] : []));
    return { status: this.foundStatus(ctx, answers.length, records.length, 220, skips, 'Some records were not found'), answer_records: answers, skipped_records: skips, answer_count: answers.length, statistics: clock.done() };
  }

  /**
   * What a fashion or home-decor update leaves derived from the image (issue 20). A flag turned
   * off takes away what it made; with a new image, what the old one gave goes (the flags still on
   * make it again from the new image). Categories changed without an image are written on the
   * stored item too; removed, they are predicted again as an insert's would be (the neighbours'
   * vote on the stored vector, else the detector's kind), so the item never claims the client's
   * categories after the client took them away.
   */
  private async itemsAfterUpdate(c: CollectionRecord, current: StoredRecord, data: Record<string, unknown>, record: InputRecord, item: ImageTaskResults['item'] | undefined, flagOn: (f: 'extract_colors' | 'extract_tags') => boolean): Promise<void> {
    // what the server made: a value of the client's own (sent now, or stored as sent) is never its to take away or keep
    const madeColors = serverColors(current.data);
    const madeTags = serverTags(current.data);
    if (current.data.extract_colors === true && (item || !flagOn('extract_colors')) && record._dominant_colors === undefined && madeColors) delete data._dominant_colors;
    if (current.data.extract_tags === true && (item || !flagOn('extract_tags'))) {
      // the client's own, sent with the flag turned off or stored as sent, kept as the colours' are (h247)
      if (record._tags === undefined && madeTags) delete data._tags;
      if (record._tags_simple === undefined && serverTagsSimple(current.data)) delete data._tags_simple;
    }
    if (item) return;
    // without an image the item and the colours it asks for stay the server's, as on insert where only a box is read
    // from a client's `_objects` (h242: a made-up item sent by update was searched by its name; null removed it)
    if (Object.hasOwn(record, '_objects')) {
      if (current.data._objects !== undefined) data._objects = current.data._objects;
      else delete data._objects;
    }
    // A value the client sends is stored as sent, as on insert (rule 3; h242 and h246 kept the server's instead). null
    // takes away the client's own, but not what a flag still on made (h242: null removed the colours the flag asked for).
    if (current.data.extract_colors === true && flagOn('extract_colors') && record._dominant_colors === null && madeColors) data._dominant_colors = current.data._dominant_colors;
    if (current.data.extract_tags === true && flagOn('extract_tags') && record._tags === null && madeTags) data._tags = current.data._tags;
    const objects = Array.isArray(current.data._objects) ? (current.data._objects as Record<string, unknown>[]) : [];
    const first = objects[0];
    if (!first || (!Object.hasOwn(record, 'Top Category') && !Object.hasOwn(record, 'Category'))) return;
    const { 'Top Category': _t, Category: _c, category_source: _s, 'pre-filled': _p, ...rest } = first;
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    let categories: { top?: string; category?: string } | undefined;
    let source: string | undefined;
    if (text(data['Top Category']) !== undefined || text(data.Category) !== undefined) {
      categories = { top: text(data['Top Category']), category: text(data.Category) };
      source = 'record';
    } else if (typeof first.name === 'string' && first.name !== 'item') {
      const stored = await this.queries.lookup(c, current.recordId);
      const voted = stored ? await this.vote(c, stored.vector, first.name, current.recordId) : undefined;
      const detected = categoriesOf(c.type as ItemDomain, first.name);
      const predicted = voted ? { top: text(voted.top), category: text(voted.category) } : detected ? { top: detected.top, category: detected.category } : undefined;
      if (predicted) {
        categories = predicted;
        source = voted ? 'neighbours' : 'detector';
        // the detector's or the neighbours' categories become the record's, as on insert
        if (predicted.top !== undefined) data['Top Category'] = predicted.top;
        if (predicted.category !== undefined) data.Category = predicted.category;
      }
    }
    const object: Record<string, unknown> = {
      ...rest,
      ...(categories?.top !== undefined ? { 'Top Category': categories.top } : {}),
      ...(categories?.category !== undefined ? { Category: categories.category } : {}),
      ...(source === 'record' ? { category_source: 'record', 'pre-filled': true } : source ? { category_source: source } : {}),
    };
    data._objects = [object, ...objects.slice(1)];
    // the server's tags follow the categories; a client's own are its words, kept as sent
    const tags = madeTags && record._tags === undefined ? (data._tags as Record<string, unknown> | undefined) : undefined;
    if (tags && typeof tags === 'object') {
      const entry = (name: string | undefined) => (name === undefined ? undefined : [{ name, prob: source === 'record' ? 1 : (first.prob ?? 1), ...(source === 'record' ? { 'pre-filled': true } : {}) }]);
      const { 'Top Category': _a, Category: _b, ...others } = tags;
      const top = entry(categories?.top);
      const category = entry(categories?.category);
      data._tags = { ...(top ? { 'Top Category': top } : {}), ...(category ? { Category: category } : {}), ...others };
    }
  }

  /** A field set to null is removed; an image (`_url`/`_base64`/`_file`) replaces the vector. */
  async update(ctx: SearchContext, c: CollectionRecord, records: InputRecord[], fields: Fields): Promise<Envelope> {
    const clock = stopwatch();
    const answers: Out[] = [];
    const skips: Out[] = [];
    records: for (const record of records) {
      const id = idOf(record);
      if (id === undefined) {
        skips.push(badId(ctx, record));
        continue;
      }
      const first = (await this.store.getByIds(c.id, [id]))[0];
      if (!first) {
        // skipped records carry the fields sent (spec 2 §2), as insert's do
        skips.push(skipped(ctx, echo(record), 404, 'not found'));
        continue;
      }
      let current: StoredRecord = first;
      // Dotted names are checked before any image work, on a copy: a field whose name starts with _ is the spec's or
      // the server's, set whole (its checks read it as sent: `_width.a` stored an object where a number goes, h86).
      const dotted = Object.keys(record).filter((k) => k.includes('.') && !Object.hasOwn(current.data, k));
      const reserved = dotted.find((k) => k.startsWith('_'));
      let unsettable = reserved ? `${reserved.slice(0, 80)}: a field whose name starts with _ is set whole, not in parts` : undefined;
      unsettable ??= pathConflict(Object.keys(record), dotted) ?? dollarProblem(record, true);
      if (!unsettable && dotted.length) {
        const trial = { ...current.data };
        for (const k of dotted) unsettable ??= setPath(trial, k, record[k]);
      }
      if (unsettable) {
        skips.push(skipped(ctx, { ...echo(record), _id: id }, 400, unsettable));
        continue;
      }
      let vector: Float32Array | undefined;
      let hash: string | null = null;
      let observed: Observed | undefined;
      let item: ImageTaskResults['item'] | undefined;
      let voted: { top: unknown; category: unknown } | undefined;
      const items = c.type === 'fashion' || c.type === 'homedecor';
      // The extract flags the record carries after this update: its own where sent (null: off), else the stored ones.
      const flagOn = (f: 'extract_colors' | 'extract_tags') => (Object.hasOwn(record, f) ? record[f] === true : current.data[f] === true);
      let work: InputRecord = record;
      // the flags this update pays for: every one on when it sends an image; only those it turns on when the stored
      // link is read again for them (a flag already on was charged with its insert: h236, turning colours on billed the
      // tags again)
      let turnedOn: ('extract_colors' | 'extract_tags')[] | undefined;
      // The outputs of the flags this record keeps of its client's own: sent now with a value, else stored as sent (the
      // server's own are made again from a new image). They are kept as they are, and a flag that has them all has
      // nothing to make: it reads no image and is not billed.
      const madeBy = { _dominant_colors: serverColors, _tags: serverTags, _tags_simple: serverTagsSimple } as const;
      const keptOwn: InputRecord = {};
      if (items) for (const f of ['_dominant_colors', '_tags', '_tags_simple'] as const) if (record[f] === undefined && current.data[f] !== undefined && current.data[f] !== null && !madeBy[f](current.data)) keptOwn[f] = current.data[f];
      if (items && (record._url === undefined || record._url === null) && record._base64 === undefined && record._file === undefined) {
        // A flag turned on reads the image: the record's own link fetched again, or a clear refusal.
        turnedOn = (['extract_colors', 'extract_tags'] as const).filter((f) => flagOn(f) && current.data[f] !== true && !suppliesAll({ ...record, ...keptOwn }, f));
        if (turnedOn.length && typeof current.data._url !== 'string') {
          skips.push(skipped(ctx, { ...echo(record), _id: id }, 400, `${turnedOn.join(' and ')} read${turnedOn.length > 1 ? '' : 's'} the image, and this record keeps no link to it: send the image again (_url or _base64) in the same update`));
          continue;
        }
        if (turnedOn.length) work = { ...record, _url: current.data._url };
        // a box the client drew chooses the item in the image (rule 7): with no image read it chose nothing, and the
        // update answered 205 keeping the old item without a word; refused as a box beside a query's _id alone is. The
        // stored item's own box sent back (a record read and written back) is no change.
        const drawn = typeof work._url !== 'string' ? recordBox(record, false) : undefined;
        const storedBox = (current.data._objects as Record<string, unknown>[] | undefined)?.[0]?.bound_box;
        if (drawn && !(Array.isArray(storedBox) && drawn.every((x, k) => x === storedBox[k]))) {
          skips.push(skipped(ctx, { ...echo(record), _id: id }, 400, '_objects[0].bound_box chooses the item in the image: send the image with it (_url or _base64) in the same update; without one the record keeps the item it is stored by'));
          continue;
        }
      }
      // Categories the record's own client gave stay its own when only the image changes.
      const named = typeof record['Top Category'] === 'string' || typeof record.Category === 'string';
      const own = current.data._objects as { category_source?: unknown }[] | undefined;
      const keptCategories = !named && !Object.hasOwn(record, 'Top Category') && !Object.hasOwn(record, 'Category') && Array.isArray(own) && own[0]?.category_source === 'record';
      const basis: InputRecord = {
        ...work,
        ...(keptCategories ? { 'Top Category': current.data['Top Category'], Category: current.data.Category } : {}),
        ...(items ? { extract_colors: flagOn('extract_colors'), extract_tags: flagOn('extract_tags') } : {}),
        // colours and tags the client wrote itself are kept as they are; the server's own are made again from the new image
        ...keptOwn,
      };
      const paid: InputRecord = turnedOn ? { ...basis, extract_colors: turnedOn.includes('extract_colors'), extract_tags: turnedOn.includes('extract_tags') } : basis;
      let extras: { refund(records: InputRecord[]): Promise<void> } | undefined;
      // the new image's thumbnail, written before the record is: removed again when the record is not updated
      let thumbnailKey: string | null | undefined;
      const fail = async (code: number, text: string) => {
        await extras?.refund([paid]);
        await this.removeMedia([thumbnailKey]);
        skips.push(skipped(ctx, { ...echo(record), _id: id }, code, text));
      };
      if ((work._url !== undefined && work._url !== null) || work._base64 !== undefined || work._file !== undefined) {
        try {
          extras = await this.chargeExtras(ctx, c, [paid]);
        } catch (err) {
          if (err instanceof ServiceError && err.status === 402) {
            skips.push(skipped(ctx, { ...echo(record), _id: id }, 402, err.message));
            continue;
          }
          throw err;
        }
        const [o] = await this.embedForStore(c, [basis], false);
        if ('error' in o!) {
          await fail(o.error.code, o.error.text);
          continue;
        }
        // A vector of another model would not fit the collection's index.
        if (c.model !== null && o!.ok.model !== c.model) {
          await fail(409, mismatch(c.model, o!.ok.model));
          continue;
        }
        const outside = 'items' in o!.ok ? boxOutside(recordBox(basis, false), o!.ok) : undefined;
        if (outside) {
          await fail(400, outside);
          continue;
        }
        vector = Float32Array.from(o!.ok.descriptor);
        hash = o!.ok.hash ?? null;
        // a new image without a thumbnail (thumbnails off) takes the old image's away: it no longer shows the record
        thumbnailKey = this.thumbnails ? ((await this.thumbnails.write([o!.ok.thumbnail]))[0] ?? null) : undefined;
        if ('observed' in o!.ok) observed = o!.ok.observed;
        if ('items' in o!.ok) {
          item = o!.ok;
          [voted] = await this.votes(c, [basis], [o!]);
        }
      }
      let done: { record: StoredRecord; seq: number; replacedMedia?: string } | undefined;
      for (let tries = 0; ; tries++) {
        const data: Record<string, unknown> = { ...current.data, _id: id };
        // A new image sent as base64 or a server file leaves no URL: the old one no longer applies.
        // (an image refetched from the record's own link, for a flag turned on, keeps it)
        if (vector && typeof work._url !== 'string') delete data._url;
        // `_url: null` removes the stored link, as null removes any field (spec 2, update); the vector stays (h251)
        if (record._url === null) delete data._url;
        let unset: string | undefined;
        for (const [k, v] of Object.entries(attributes(record))) unset ??= setPath(data, k, v);
        if (unset) {
          await fail(400, unset);
          continue records;
        }
        if (items) await this.itemsAfterUpdate(c, current, data, record, item, flagOn);
        if (item) Object.assign(data, this.itemFields(c, basis, item, false, voted));
        // (its `$` names were checked as it came, before any image work)
        const missing = this.recordShapeProblem(c, data, record);
        if (missing) {
          await fail(400, missing);
          continue records;
        }
        const text = c.type === 'custom' ? undefined : this.textRow(c, data, observed, observed ? undefined : await this.store.text.get(this.store.store.db, current.key));
        // the collection deleted meanwhile: the extras charged for this record go back before the 404
        const updated = await whileExists(c, this.store.update(c.id, id!, data, vector, text, hash, current.seq, thumbnailKey).catch(async (err: unknown) => {
          if (err instanceof CollectionGone) await extras?.refund([paid]);
          await this.removeMedia([thumbnailKey]);
          throw err;
        }));
        if (updated === 'changed' && tries >= 15) {
          await fail(409, 'the record changed under this update again and again (other updates of it at the same time): send it again');
          continue records;
        }
        // another update of this record wrote first: merged again over what it wrote (its fields kept, h154)
        const again = updated === 'changed' ? (await this.store.getByIds(c.id, [id]))[0] : undefined;
        if (again) {
          current = again;
          // a turn for the others, longer each time: twelve updates of one record at once, racing in a tight loop on
          // PostgreSQL, ran one out of tries (h216)
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 4 * 2 ** tries)));
          continue;
        }
        if (updated === 'changed' || !updated) {
          await fail(404, 'not found');
          continue records;
        }
        done = updated;
        break;
      }
      const updated = done;
      // applied before the old thumbnail's removal (file work, during which other writes commit and were applied first:
      // an older vector then replaced a newer one of the same record in memory, h361)
      this.apply(c, { kind: 'upsert', record: updated.record, ...(vector ? { vector, hash } : {}), seq: updated.seq });
      await this.removeMedia([updated.replacedMedia]);
      answers.push(project(updated.record, fields, ['*']));
    }
    // When nothing was updated the status says why: 404 only when the records were missing, the
    // image's own error (400 for an image that does not load) when that is what every record hit.
    const failures = skips.map((k) => (k._reason as { status: { code: number; text: string } }).status);
    const code = sharedCode(failures);
    // every record refused for credits: the call's 402, as an insert's (h175: its envelope lacked the error's detail,
    // and the answer failed to serialise, a 500 a client retries for ever)
    if (answers.length === 0 && failures.length > 0 && code === 402) throw new ServiceError(402, 'insufficient_credits', failures[0]!.text);
    const overallStatus = answers.length === 0 && failures.length > 0 && code !== 404 ? status(ctx, code, 'No record was updated') : this.foundStatus(ctx, answers.length, records.length, 205, skips, 'Some records were not updated (skipped_records says which and why)');
    return { status: overallStatus, answer_records: answers, skipped_records: skips, answer_count: answers.length, statistics: clock.done() };
  }

  /** Files the records' deletion or update no longer names, removed after its commit (record-thumbnails.ts). */
  private removeMedia(keys: readonly (string | null | undefined)[]): Promise<void> {
    return this.thumbnails?.remove(keys) ?? Promise.resolve();
  }

  /**
   * `thumbnails` (not in the spec; the console's search results): a signed link to each record's thumbnail, `null` for
   * a record stored without one (before the server made them, or with LOUPE_RECORD_THUMBNAILS off), and the records
   * not stored skipped as `get` skips them. A method of its own, so no spec method's answer carries a field its clients'
   * parsers do not know (docs/api-decisions.md).
   */
  async thumbnailLinks(ctx: SearchContext, c: CollectionRecord, records: { _id?: unknown }[], baseUrl: string): Promise<Envelope> {
    const clock = stopwatch();
    const ids = records.map(idOf);
    const links = this.thumbnails ? await this.thumbnails.linksOf(baseUrl, c.id, ids.filter((x): x is string => x !== undefined)) : new Map((await this.store.getByIds(c.id, ids.filter((x): x is string => x !== undefined))).map((r) => [r.recordId, null]));
    const answers = ids.flatMap((id) => (id !== undefined && links.has(id) ? [{ _id: id, _thumbnail: links.get(id) ?? null }] : []));
    const skips = records.flatMap((r, i) => (ids[i] === undefined ? [badId(ctx, r)] : !links.has(ids[i]!) ? [skipped(ctx, sentId(r), 404, 'not found')] : []));
    return { status: this.foundStatus(ctx, answers.length, records.length, 205, skips, 'Some records were not found'), answer_records: answers, skipped_records: skips, answer_count: answers.length, statistics: clock.done() };
  }

  async find(ctx: SearchContext, c: CollectionRecord, filter: unknown, limit: number, fields: Fields, from = 0): Promise<Envelope> {
    const clock = stopwatch();
    const rows = await this.queries.find(c, checkedFilter(filter), limit, from);
    return { status: status(ctx, 200, 'OK'), answer_records: rows.map((r) => project(r, fields, ['*'])), answer_count: rows.length, statistics: clock.done() };
  }

  async count(ctx: SearchContext, c: CollectionRecord, filter: unknown): Promise<Envelope> {
    const clock = stopwatch();
    return { status: status(ctx, 200, 'OK'), count: await this.queries.count(c, checkedFilter(filter)), statistics: clock.done() };
  }

  async random(ctx: SearchContext, c: CollectionRecord, count: number, filter: unknown, fields: Fields): Promise<Envelope> {
    const clock = stopwatch();
    const rows = await this.queries.random(c, count, checkedFilter(filter));
    return { status: status(ctx, 200, 'OK'), answer_records: rows.map((r) => project(r, fields, ['_id'])), answer_count: rows.length, statistics: clock.done() };
  }

  /**
   * Pages of `size` records in insertion order; `page` counts from 1; `next` is the next page's URL. It carries `after`,
   * the page's last record's place: a page asked with it holds the records after it, so records deleted before it
   * meanwhile move none past the pages read (h114: an export during a deleteByFilter missed 300 live records).
   */
  async allRecords(ctx: SearchContext, c: CollectionRecord, page: number, size: number, idsOnly: boolean, filter: unknown, nextUrl: (page: number, after: number) => string, after?: number, fields?: Fields, from = 0): Promise<Envelope> {
    const clock = stopwatch();
    const f = checkedFilter(filter);
    // `from` skips records before the page (by number) or after `after`; next names the page's last record, so the
    // pages that follow it go on from there
    const rows = after === undefined ? await this.queries.find(c, f, size + 1, from + (page - 1) * size) : await this.queries.find(c, f, size + 1, from, after);
    const more = rows.length > size;
    const kept = rows.slice(0, size);
    const out = kept.map((r) => (idsOnly ? { _id: r.recordId } : project(r, fields, ['*'])));
    return { status: status(ctx, 200, 'OK'), answer_records: out, answer_count: out.length, page, size, next: more ? nextUrl(page + 1, kept[kept.length - 1]!.key) : null, statistics: clock.done() };
  }

  /**
   * Deletes every record the filter matches, in batches. A filter that matches every record of the collection and names
   * a field none of them has is refused unless `all` is sent: a misspelt field (`{colr: null}`, `$ne` or `$nor` on it)
   * matches every record, and emptied the collection (h168). One that matches them all by fields they have is taken at
   * its word (the last sold-out product deleted by `{stock: 0}`).
   */
  async deleteByFilter(ctx: SearchContext, c: CollectionRecord, filter: unknown, all = false): Promise<Envelope> {
    const clock = stopwatch();
    const f = checkedFilter(filter);
    if (!f || matchesEverything(f)) throw new ServiceError(400, 'invalid_filter', 'deleteByFilter needs a filter that narrows the records ({}, or an $or with an empty branch, matches every one): delete the collection to remove everything.');
    if (!all) {
      const [matched, held] = await Promise.all([this.queries.count(c, f), this.queries.count(c)]);
      if (held > 0 && matched === held) {
        for (const field of filterFields(f)) {
          if ((await this.queries.count(c, { [field]: { $exists: true } })) > 0) continue;
          throw new ServiceError(400, 'invalid_filter', `deleteByFilter: the filter matches every record of the collection (${held}) and names a field no record has ("${field}"): misspelt? Check it with getRecordCount; send "all": true with it to delete them all.`);
        }
      }
    }
    // the filter again under the collection's lock, on each record as it is then
    const still = compileFilter(f);
    let total = 0;
    // a batch others changed or deleted meanwhile deletes fewer: the next one is looked for all the same (h168: a
    // shorter batch ended the call, answered 200 with 1,464 matching records left); a few found that none of them
    // still matches is the end (what the index says lags the database by a moment)
    for (let idle = 0; idle < 3; ) {
      const batch = await this.queries.find(c, f, 1000, 0);
      if (!batch.length) break;
      const { deleted, first, seq, media } = await whileExists(c, this.store.deleteByIds(c.id, batch.map((r) => r.recordId), still));
      if (deleted.length) this.apply(c, { kind: 'delete', keys: deleted.map((d) => d.key), seq, from: first });
      await this.removeMedia(media);
      total += deleted.length;
      idle = deleted.length ? 0 : idle + 1;
    }
    return { status: status(ctx, 200, 'OK'), deleted_count: total, statistics: clock.done() };
  }

  /** The query vector: a stored record's (`_id` alone) or a new image's. */
  private async queryVector(ctx: SearchContext, c: CollectionRecord, query: InputRecord, asked?: Record<string, unknown>): Promise<QueryVector> {
    const hasImage = query._url !== undefined || query._base64 !== undefined || query._file !== undefined;
    const items = c.type === 'fashion' || c.type === 'homedecor';
    if (!hasImage) {
      const id = idOf(query);
      if (id === undefined) throw new ServiceError(400, 'invalid_request', 'query_record needs an _id of a stored record, or _url / _base64.');
      const found = await this.queries.lookup(c, id);
      if (!found) throw new ServiceError(404, 'record_not_found', `query_record: record ${id} not found in the collection.`);
      // a box is searched in an image: one beside an _id alone searched the stored item without a word, a malformed one
      // too (h253); the stored item's own box, as a response gave it, is that item
      if (items && Array.isArray(query._objects) && query._objects.length) {
        const first = query._objects[0];
        const box = first && typeof first === 'object' && !Array.isArray(first) ? drawnBox((first as Record<string, unknown>).bound_box) : undefined;
        const stored = (found.record.data._objects as Record<string, unknown>[] | undefined)?.[0]?.bound_box;
        if (box && !(Array.isArray(stored) && box.every((x, k) => x === stored[k]))) throw new ServiceError(400, 'invalid_request', `query_record._objects: a box is searched in its image: send the image with it (_url or _base64); with _id alone, record ${id} is searched by the item it is stored by.`);
      }
      // categories written on the query filter, as on an image query (rule 5: "those of the query object"); else the record's
      if (items) checkCategories('query_record', query);
      const named = typeof query['Top Category'] === 'string' || typeof query.Category === 'string';
      // a client's filter naming the categories filters by them alone
      const itemFilter = items && !filterCategories(asked).named ? (named ? categoryFilter(query['Top Category'], query.Category) : categoryFilter(found.record.data['Top Category'], found.record.data.Category)) : undefined;
      const colors = items ? queryColors(storedColors(found.record.data._dominant_colors)) : undefined;
      // the stored record's tags, in every collection type: photo, product and custom queries by _id ranked by no tags
      // at all in visualTagsKNN, where fashion and home decor used theirs (h265)
      const tags = stringsOf(found.record.data[tagField[c.type]]);
      // the query as sent, as an image query's is (its _id as stored)
      return { vector: found.vector, self: found.record.key, ...(found.hash ? { hash: found.hash } : {}), echo: { ...query, _id: id }, ...(itemFilter ? { itemFilter } : {}), ...(colors ? { colors } : {}), ...(tags ? { tags } : {}) };
    }
    if (items) return this.queryItem(c, query, asked);
    const [o] = await this.vision.each('embed', [query]);
    if ('error' in o!) throw queryFailed(o.error);
    if (c.model !== null && o!.ok.model !== c.model) throw new ServiceError(409, 'model_mismatch', mismatch(c.model, o!.ok.model));
    const { _base64: _b, ...echo } = query;
    return { vector: Float32Array.from(o!.ok.descriptor), ...(o!.ok.hash ? { hash: o!.ok.hash } : {}), echo: { ...echo, _width: o!.ok.width, _height: o!.ok.height } };
  }

  /**
   * A fashion or home-decor query photo (spec rules 5–7): every item found is echoed in
   * `query_records[0]._objects`; the search is for a pre-filled or drawn `_objects[0]`, else the
   * largest item of the kinds the query's categories name, else the largest. The item's
   * categories become the default filter: the client's when it sent them, the detector's only
   * where some record of the collection has them (records keep their shop's own words).
   */
  private async queryItem(c: CollectionRecord, query: InputRecord, asked?: Record<string, unknown>): Promise<QueryVector> {
    const domain = c.type as ItemDomain;
    if (query._objects !== undefined && query._objects !== null && !isObjectList(query._objects)) {
      throw new ServiceError(400, 'invalid_request', 'query_record._objects must be a list of objects, e.g. [{"bound_box": [xmin, ymin, xmax, ymax]}].');
    }
    // rule 7 searches one item, the first: a client may send back a response's whole list, the one it wants first
    const given = Array.isArray(query._objects) ? (query._objects[0] as Record<string, unknown> | undefined) : undefined;
    const box = given ? drawnBox(given.bound_box) : undefined;
    // An object copied from a response (rule 7) carries the detector's categories, marked so: they
    // choose the item, but filter only as the detector's do for a photo (a vote of the shop's own
    // records first), or a shop with its own taxonomy would get nothing back.
    checkCategories('query_record', query);
    checkCategories('query_record._objects[0]', given);
    // an object naming neither a box nor categories chooses nothing; searched as if absent, it answered for another
    // item than the one meant (h141: `{"id": "0"}`, the detected item's id alone, searched the whole photo)
    if (given && given.bound_box === undefined && typeof given['Top Category'] !== 'string' && typeof given.Category !== 'string') {
      throw new ServiceError(400, 'invalid_request', 'query_record._objects[0] names no item: send it as a response gave it (with its bound_box), a bound_box of your own, or its Top Category / Category.');
    }
    // the typed fields are held to the types an insert's must have, not ignored when malformed
    for (const flag of ['extract_colors', 'extract_tags']) {
      const v = query[flag];
      if (v !== undefined && v !== null && typeof v !== 'boolean') throw new ServiceError(400, 'invalid_request', `query_record.${flag} must be true or false.`);
    }
    const colours = dominantColorsProblem(query._dominant_colors);
    if (colours) throw new ServiceError(400, 'invalid_request', `query_record._dominant_colors${colours}.`);
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const copied = given !== undefined && given.category_source === 'detector' && text(query['Top Category']) === undefined && text(query.Category) === undefined;
    // categories on the query record itself filter, over those of an object (which may be a copy from a response)
    const recordNamed = text(query['Top Category']) !== undefined || text(query.Category) !== undefined;
    const fromFilter = filterCategories(asked);
    const objectNamed = text(given?.['Top Category']) !== undefined || text(given?.Category) !== undefined;
    // the item is chosen by the record's categories, else the object's, else the plain ones the client's filter asks
    const top = recordNamed ? text(query['Top Category']) : objectNamed ? text(given?.['Top Category']) : fromFilter.top;
    const category = recordNamed ? text(query.Category) : objectNamed ? text(given?.Category) : fromFilter.category;
    const [o] = await this.vision.each('item', [query], { seen: [], domain, wanted: wantedItems(domain, top, category), ...(box ? { boundBox: box, drawn: !serversObject(given) } : {}) });
    if ('error' in o!) throw queryFailed(o.error);
    const r = o!.ok;
    if (c.model !== null && r.model !== c.model) throw new ServiceError(409, 'model_mismatch', mismatch(c.model, r.model));
    if (box && (box[0] >= r.width - 8 || box[1] >= r.height - 8)) throw new ServiceError(400, 'invalid_request', `query_record._objects[0].bound_box lies outside the ${r.width}x${r.height} image.`);
    // the box searched: what was drawn, within the image
    const used = box && ([box[0], box[1], Math.min(box[2], r.width), Math.min(box[3], r.height)] as [number, number, number, number]);
    const sameBox = (a: readonly number[], b: readonly number[]) => a.every((x, k) => x === b[k]);
    const objects: Out[] = r.items.map((item, i) => {
      const cats = categoriesOf(domain, item.name);
      const out: Out = { id: String(i), name: item.name, prob: item.prob, bound_box: item.box, area: boxArea(item.box), ...(cats ? { 'Top Category': cats.top, Category: cats.category, category_source: 'detector' } : {}) };
      if (query.extract_tags === true) {
        // Colours are measured on the item searched only.
        const colours = colorTagsOf(sameBox(item.box, r.chosen.box) ? r.colors.slice(0, 5) : []);
        out._tags = {
          ...(cats ? { 'Top Category': [{ name: cats.top, prob: item.prob }], Category: [{ name: cats.category, prob: item.prob }] } : {}),
          Item: [{ name: item.name, prob: item.prob }],
          ...(colours.Color.length ? { Color: colours.Color } : {}),
        };
        out._tags_simple = [item.name, ...colours.names];
      }
      return out;
    });
    // A drawn box or pre-filled object the client sent stays in the echo, first, as the item searched.
    if (box && given) {
      const colours = colorTagsOf(r.colors.slice(0, 5));
      const tags = query.extract_tags === true ? { _tags: { Color: colours.Color }, _tags_simple: colours.names } : {};
      // a drawn box gets the fields every detected object has (spec 2 §2), under what the client sent
      // its id the next after the detected items' (every object has one); an item copied from a
      // response is that detected item, listed once, with the id it had
      const same = objects.findIndex((o) => sameBox(o.bound_box as number[], used!));
      const id = same >= 0 ? objects.splice(same, 1)[0]!.id : String(r.items.length);
      objects.unshift({ id, name: 'item', prob: 1, ...given, bound_box: used!, area: boxArea(used!), 'pre-filled': true, ...tags });
    } else {
      // the item searched comes first, as a drawn one does: the query's categories may choose another than the largest
      const at = r.items.findIndex((item) => sameBox(item.box, r.chosen.box));
      if (at > 0) objects.unshift(...objects.splice(at, 1));
      // the whole image searched in place of items too small or not of the kind asked: it stands first, so the echo
      // says what was searched and with which categories (h105: a chair of 1.7 % was first, unmarked, while the
      // answers were the whole photo's)
      else if (at < 0 && r.whole) objects.unshift({ id: String(r.items.length), name: 'item', prob: 1, bound_box: r.chosen.box, area: boxArea(r.chosen.box) });
    }
    const { _base64: _b, ...echo } = query;
    let itemFilter: Record<string, unknown> | undefined;
    // the categories the filter was made from, as the echo shows them
    let shown: Record<string, unknown> | undefined;
    let v: { top: unknown; category: unknown } | undefined;
    // the kind of item searched: the detector's, or the copied object's own name
    const kind = copied && typeof given.name === 'string' ? given.name : box ? undefined : r.chosen.name;
    if (fromFilter.named) itemFilter = undefined;
    else if (!copied && (typeof top === 'string' || typeof category === 'string')) [itemFilter, shown] = [categoryFilter(top, category), itemCategories(top, category)];
    // The whole image (no item found) is no kind of item: neither a vote nor a filter.
    else if ((v = !r.whole && kind !== undefined && kind !== 'item' ? await this.vote(c, Float32Array.from(r.descriptor), kind) : undefined)) [itemFilter, shown] = [categoryFilter(v.top, v.category), itemCategories(v.top, v.category)];
    else {
      const predicted = r.whole || kind === undefined ? undefined : categoriesOf(domain, kind);
      const candidate = predicted && categoryFilter(predicted.top, predicted.category);
      if (candidate && (await this.queries.count(c, candidate)) > 0) [itemFilter, shown] = [candidate, itemCategories(predicted.top, predicted.category)];
    }
    // Rule 5 filters by "those of the query object": the item searched shows the categories that
    // filtered and where they came from (a helper's echo said the detector's upper body while the
    // shop's nearest records' vote filtered by their own taxonomy), or that none filtered.
    const searched = objects[0];
    if (searched) {
      if (itemFilter) {
        const source = v ? 'neighbours' : !copied && (typeof top === 'string' || typeof category === 'string') ? 'record' : 'detector';
        delete searched['Top Category'];
        delete searched.Category;
        Object.assign(searched, shown ?? itemFilter, { category_source: source, category_filter: true });
      } else {
        searched.category_filter = false;
        // the client's filter names the categories: it filters by them, in place of this item's (rule 5's default)
        if (fromFilter.named) searched.category_source = 'filter';
      }
    }
    // The query's own _dominant_colors when it sent them, else its item's.
    const sentColors = queryColors(storedColors(query._dominant_colors));
    const colors = sentColors ?? queryColors(r.colors.slice(0, 5).map((x) => [...x.luv, x.percentage / 100]));
    // as extract_tags stores them: the item's kind and its colours' names
    const tags = [...(kind !== undefined ? [kind] : box ? ['item'] : []), ...colorTagsOf(r.colors.slice(0, 5)).names];
    return { vector: Float32Array.from(r.descriptor), ...(r.hash ? { hash: r.hash } : {}), echo: { ...echo, _width: r.width, _height: r.height, _objects: objects }, ...(itemFilter ? { itemFilter } : {}), ...(colors ? { colors } : {}), tags };
  }

  private answer(ctx: SearchContext, clock: { done(): Statistics }, queryRecords: Out[], hits: Hit[], fields: Fields): Envelope {
    return {
      status: status(ctx, 200, 'OK'),
      query_records: queryRecords,
      answer_records: hits.map((h) => project(h.record, fields, ['_id'])),
      answer_distances: hits.map((h) => scaled(h.distance)),
      answer_count: hits.length,
      statistics: clock.done(),
    };
  }

  /** Every record within `radius` (scaled distance) of the query, closest first, at most `limit`. */
  async range(ctx: SearchContext, c: CollectionRecord, query: InputRecord, opts: { radius: number; limit: number; from?: number; fields: Fields; filter: unknown; nearDuplicates?: boolean }): Promise<Envelope> {
    const clock = stopwatch();
    const filter = checkedFilter(opts.filter);
    // the filter's categories choose a query photo's item here too (h144: range and nearDuplicates searched the largest)
    const { vector, hash, echo, self } = await this.queryVector(ctx, c, query, filter);
    // range and nearDuplicates filter by the client's filter alone: the item searched says no category filtered (its
    // echo said `category_filter: true` while other categories' records came back, h144)
    const searched = (echo._objects as Record<string, unknown>[] | undefined)?.[0];
    if (searched?.category_filter === true) searched.category_filter = false;
    // after the request's own checks: a bad filter or image is the client's 400 whatever the collection holds
    await this.products.require(c);
    const from = opts.from ?? 0;
    const found = opts.nearDuplicates ? await this.nearDuplicateHits(c, vector, hash, opts.radius, opts.limit + from, filter) : await this.rangeAsShown(c, vector, opts.radius, opts.limit + from, filter);
    // a search by a stored record's _id answers that record first, at 0, before copies of its image stored earlier, as
    // visualKNN does (h161: a client dropping the first answer as "itself" dropped the real duplicate)
    // (fetched apart when copies stored earlier filled the page before it, h162: it was left out, and `from` repeated one)
    let listed = found;
    if (self !== undefined) {
      const rest = found.filter((h) => h.record.key !== self);
      let me = found.find((h) => h.record.key === self);
      if (!me) {
        const [record] = await this.store.getByKeys(c.id, [self]);
        if (record && (!filter || (await this.queries.count(c, { $and: [filter, { _id: record.recordId }] })) > 0)) me = { record, distance: 0 };
      }
      listed = me ? [{ ...me, distance: 0 }, ...rest] : rest;
    }
    const hits = listed.slice(from, from + opts.limit);
    return this.answer(ctx, clock, [echo], hits, opts.fields);
  }

  /**
   * Records within `radius` as answers show distances (× 100, four decimals): one shown at the radius is within it.
   * Compared unrounded, a record k-NN had shown at 33.3779 was left out of a range of 33.3779 about half the time (h130).
   */
  private async rangeAsShown(c: CollectionRecord, vector: Float32Array, radius: number, limit: number, filter?: Filter): Promise<Hit[]> {
    const hits = await this.queries.range(c, vector, rawRadius(radius), limit, filter);
    return hits.filter((h) => scaled(h.distance) <= radius);
  }

  /**
   * Near duplicates of a query: records within `radius` by the descriptor, and records whose `bmh1`
   * visual hash lies within {@link nearDuplicateBits} of the query's (re-encoded, resized and greyscale
   * copies, which the descriptor places 10–40 apart), closest by the descriptor first.
   */
  private async nearDuplicateHits(c: CollectionRecord, vector: Float32Array, hash: string | undefined, radius: number, limit: number, filter?: Filter): Promise<Hit[]> {
    const near = await this.rangeAsShown(c, vector, radius, limit, filter);
    // a query hash within reach of a blank image's (a flat or nearly flat picture, of whatever colour) is no
    // evidence: the descriptor decides alone (h273: every uniform image was a near duplicate of every other)
    if (!hash || !patterned(hash, nearDuplicateBits(radius))) return near;
    const byHash = await this.queries.nearHashes(c, hash, nearDuplicateBits(radius), vector, limit, filter);
    const seen = new Set(near.map((h) => h.record.key));
    return [...near, ...byHash.filter((h) => !seen.has(h.record.key))].sort((a, b) => a.distance - b.distance || a.record.key - b.record.key).slice(0, limit);
  }

  /**
   * Several query images: the answers are the records nearest to their mean direction (the
   * normalised sum of the query vectors), so a record close to all of them ranks first. A query
   * that cannot be used is skipped with its own status (206); when none can, its error.
   */
  async visualKnnMulti(ctx: SearchContext, c: CollectionRecord, queries: InputRecord[], opts: { k: number; from: number; fields: Fields; filter: unknown; tags?: boolean; productField?: string | undefined }): Promise<Envelope> {
    // Spec rule 8: fashion search queries take exactly one record.
    if ((c.type === 'fashion' || c.type === 'homedecor') && queries.length > 1) throw new ServiceError(400, 'too_many_records', `${c.type} collections take exactly one query record; ${queries.length} were sent.`);
    const clock = stopwatch();
    const checked = checkedFilter(opts.filter);
    const resolved: QueryVector[] = [];
    const used: InputRecord[] = [];
    const skips: Out[] = [];
    let first: ServiceError | undefined;
    for (const [i, q] of queries.entries()) {
      const not = notAnObject(ctx, q, "a stored record's _id, or an image: _url, _base64 or _file", 'query_records', { query_index: i });
      if (not) {
        // as one whose image does not load: the others still search, and none left is the request's 400
        skips.push(not);
        first ??= new ServiceError(400, 'invalid_request', (not._reason as { status: { text: string } }).status.text);
        continue;
      }
      try {
        resolved.push(await this.queryVector(ctx, c, q, checked));
        used.push(q);
      } catch (e) {
        // one query that cannot be used (an unknown _id 404, an image that does not load 400, one
        // whose processing failed or ran out of time 500 / 504) is that record's status, and the
        // others still search; a busy server (503) or another model's vectors (409) fail the
        // request, as they would any of its queries
        if (!(e instanceof ServiceError) || ![400, 404, 500, 504].includes(e.status)) throw e;
        // its message names the query by its place in query_records (h251: it said query_record)
        const detail = e.detail.replace(/^query_record\b/, `query_records[${i}]`);
        first ??= detail === e.detail ? e : new ServiceError(e.status, e.code, detail, e.errors, e.headers);
        // an image query echoes no _id: its place in query_records says which it was
        skips.push(skipped(ctx, echo(q), e.status, detail, { query_index: i }));
      }
    }
    if (!resolved.length) throw first!;
    await this.products.require(c);
    const sum = new Float32Array(resolved[0]!.vector.length);
    for (const r of resolved) r.vector.forEach((x, i) => (sum[i] = sum[i]! + x));
    let sq = 0;
    for (const x of sum) sq += x * x;
    const norm = Math.sqrt(sq) || 1;
    const centre = sum.map((x) => x / norm);
    const tags = opts.tags ? [...new Set(used.flatMap((q, i) => queryTags(c, q, tagsOf(c, q), resolved[i]!)))] : undefined;
    const want = opts.k + opts.from;
    const hits = await onePerProduct(opts.productField, want, c.recordCount, (n) => this.rank(c, centre, n, checked, tags));
    const answer = this.answer(ctx, clock, resolved.map((r) => r.echo), hits.slice(opts.from, want), opts.fields);
    return skips.length ? { ...answer, status: status(ctx, 206, 'Some query records were not used'), skipped_records: skips } : answer;
  }

  /** The collection's nearest records in a stable order (see tieStable). */
  private nearest(c: CollectionRecord, vector: Float32Array, n: number, filter?: Record<string, unknown>, self?: number): Promise<Hit[]> {
    return tieStable(n, c.recordCount, (m) => this.queries.knn(c, vector, m, filter), self);
  }

  /**
   * Visual distance re-ranked by tags: among the `RERANKED` nearest records, each distance is
   * multiplied by (1 − ½·J), J the Jaccard similarity of the query's and the record's tags; a
   * record sharing every tag ranks as if twice as close. Records past them follow in visual
   * order, so one order whatever the page: the pool grew with `k + from`, and a tagged record
   * 150th by sight was 9th with k 300 and on no page of ten. Re-ranking only shortens a
   * distance, so the answers' distances still rise. Without query tags it is visualKNN.
   */
  private async rank(c: CollectionRecord, vector: Float32Array, want: number, filter: Record<string, unknown> | undefined, tags: string[] | undefined, colors?: DominantColorsQuery, self?: number): Promise<Hit[]> {
    if (!tags?.length && !colors) return this.nearest(c, vector, want, filter, self);
    // the pool from a search of one size whatever the page: above 1,024 records the embedded index is
    // approximate, and a larger search's first 500 were other records (a page at 500 repeated five)
    const pool = await this.nearest(c, vector, RERANKED, filter, self);
    const pooled = new Set(pool.map((h) => h.record.key));
    // past the pool, only records at least as far as its farthest: one the smaller search missed, closer
    // than that, would come after re-ranked records farther than it (answers out of order), so it is
    // left out as the smaller search left it out
    const farthest = pool.length ? scaled(pool[pool.length - 1]!.distance) : 0;
    const rest = want > RERANKED ? (await this.nearest(c, vector, want, filter, self)).filter((h) => !pooled.has(h.record.key) && scaled(h.distance) >= farthest) : [];
    const q = new Set(tags ?? []);
    // Fashion and home decor (docs/api-decisions.md): colours count too, a quarter as much as tags.
    // A record's colours are its extracted _dominant_colors, else those text search kept of its image.
    const extracted = colors ? pool.map((h) => storedColors(h.record.data._dominant_colors)) : [];
    const kept = colors ? await this.store.text.colorsOf(this.store.store.db, pool.filter((_, i) => !extracted[i]!.length).map((h) => h.record.key)) : undefined;
    return pool
      .map((h, i) => {
        const own = recordTags(c, h.record);
        const inter = own.filter((t) => q.has(t)).length;
        const union = new Set([...own, ...q]).size;
        const j = union ? inter / union : 0;
        const m = colors ? colorMatch(colors, extracted[i]!.length ? extracted[i]! : (kept!.get(h.record.key) ?? [])) : 0;
        return { ...h, distance: h.distance * (1 - 0.5 * j) * (1 - 0.25 * m) };
      })
      .sort((a, b) => (a.record.key === self ? -1 : b.record.key === self ? 1 : 0) || scaled(a.distance) - scaled(b.distance) || a.record.key - b.record.key)
      .concat(rest)
      .slice(0, want);
  }

  async visualTagsKnn(ctx: SearchContext, c: CollectionRecord, query: InputRecord, opts: { k: number; from: number; fields: Fields; filter: unknown; productField?: string | undefined }): Promise<Envelope> {
    const clock = stopwatch();
    const sent = tagsOf(c, query);
    const asked = checkedFilter(opts.filter);
    const q = await this.queryVector(ctx, c, query, asked);
    await this.products.require(c);
    const { vector, echo, itemFilter, colors, self } = q;
    const filter = withItemFilter(asked, itemFilter);
    const tags = queryTags(c, query, sent, q);
    // spec: "Same parameters and response as visualKNN", product_field's one record per product included
    const hits = await onePerProduct(opts.productField, opts.k + opts.from, c.recordCount, (n) => this.rank(c, vector, n, filter, tags, colors, self));
    return this.answer(ctx, clock, [echo], hits.slice(opts.from, opts.k + opts.from), opts.fields);
  }

  /**
   * Inserts each record unless a stored record (or an earlier one of this request) lies within
   * `radius`; skipped ones carry those records and distances in `_reason`.
   */
  async nearDupsInsert(ctx: SearchContext, c: CollectionRecord, records: InputRecord[], radius: number, fields: Fields): Promise<Envelope> {
    const clock = stopwatch();
    const tally = newTally();
    const candidates = await this.admissible(ctx, c, records, tally, false);
    // extract_colors / extract_tags are billed per record stored, as by insert (they were stored free here, h92)
    const extras = await this.chargeExtras(ctx, c, candidates.map((x) => x.record));
    try {
      const embedded = candidates.length ? await this.embedForStore(c, candidates.map((x) => x.record), true) : [];
      // One at a time, so a record is also checked against those this request inserted before it.
      for (const [i, x] of candidates.entries()) {
        const o = embedded[i]!;
        const current = (await this.store.get(c.id))!;
        if ('ok' in o && current.dimensions === o.ok.descriptor.length) {
          const near = await this.nearDuplicateHits(current, Float32Array.from(o.ok.descriptor), o.ok.hash, radius, 10);
          if (near.length) {
            tally.near++;
            skip(tally, x.record, {
              ...echo(x.record),
              _reason: { status: { code: 409, text: 'near duplicate', request_id: ctx.requestId }, answer_records: near.map((h) => ({ _id: h.record.recordId })), answer_distances: near.map((h) => scaled(h.distance)) },
            });
            continue;
          }
        }
        await this.storeEmbedded(ctx, current, [x], [o], fields, tally);
      }
    } catch (err) {
      await extras.refund(candidates.map((x) => x.record));
      throw err;
    }
    const stored = new Set(tally.answers.map((a) => a._id));
    await extras.refund(candidates.filter((x) => !stored.has(x.id)).map((x) => x.record));
    return this.inserted(ctx, clock, records, tally);
  }

  /** Pairs of records within `radius` of each other, each pair once (closest first), at most `limit`. */
  async allNearDupPairs(ctx: SearchContext, c: CollectionRecord, radius: number, limit: number, filter: unknown, from = 0): Promise<Envelope> {
    const clock = stopwatch();
    const f = checkedFilter(filter);
    await this.products.require(c);
    const pairs: { a: string; b: string; d: number }[] = [];
    const seen = new Set<string>();
    const cancelled = clientCancelled();
    for (let offset = 0; ; offset += 500) {
      const batch = await this.queries.find(c, f, 500, offset);
      // sixteen records' searches at a time: the embedded index answers each without waiting, so a large collection
      // held the event loop for the whole pass (33 s at 45,000 records, every other request and /health waiting); it
      // gives way between them, and stops for a client that went away. PostgreSQL answers the sixteen in one
      // statement (two round trips a record made the pass 14 times slower there, h261).
      for (let i = 0; i < batch.length; i += 16) {
        if (i > 0 || offset > 0) {
          await nextTurn();
          if (cancelled()) throw new ServiceError(499, 'client_closed', 'The client went away before the pairs were found.');
        }
        const some = batch.slice(i, i + 16);
        const near = await this.queries.neighbours(c, some, rawRadius(radius), 20, f);
        for (const r of some) {
          // as rangeAsShown: within the radius as answers show distances
          for (const h of (near.get(r.key) ?? []).filter((x) => scaled(x.distance) <= radius)) {
            if (h.record.key === r.key) continue;
            const [a, b] = r.key < h.record.key ? [r, h.record] : [h.record, r];
            const id = `${a.key}:${b.key}`;
            if (seen.has(id)) continue;
            seen.add(id);
            pairs.push({ a: a.recordId, b: b.recordId, d: scaled(h.distance) });
          }
        }
      }
      if (batch.length < 500) break;
    }
    pairs.sort((x, y) => x.d - y.d);
    const out = pairs.slice(from, from + limit);
    return { status: status(ctx, 200, 'OK'), answer_pairs: out.map((p) => ({ _id_a: p.a, _id_b: p.b, distance: p.d })), answer_count: out.length, statistics: clock.done() };
  }

  /**
   * Detects objects in the query image and searches with each object's region; without any
   * object, with the whole image (spec 2, detectKNN). `detection_task_id` picks the detector:
   * `objects` (COCO-80, the default), `person` (the people `/identity/v2/person` answers) or `face`.
   */
  async detectKnn(ctx: SearchContext, c: CollectionRecord, query: InputRecord, opts: { task: string; k: number; from: number; fields: Fields; filter: unknown; productField?: string | undefined }): Promise<Envelope> {
    const clock = stopwatch();
    const tasks: Record<string, { detector: 'objects' | 'persons' | 'faces'; keep: (name: string) => boolean }> = {
      objects: { detector: 'objects', keep: () => true },
      // the people /identity/v2/person answers (h285: a chair or a blurred head behind a portrait's sitter was a person)
      person: { detector: 'persons', keep: (n) => n === 'person' },
      face: { detector: 'faces', keep: () => true },
    };
    const task = tasks[opts.task];
    if (!task) throw new ServiceError(400, 'invalid_request', `Unknown detection_task_id "${opts.task}"; use one of ${Object.keys(tasks).join(', ')}.`);
    const filter = checkedFilter(opts.filter);
    if (query._url === undefined && query._base64 === undefined && query._file === undefined) throw new ServiceError(400, 'invalid_request', 'detectKNN needs an image in query_record (_url, _base64 or _file).');
    await this.products.require(c);
    let found;
    try {
      found = await this.vision.detectAndDescribe(query, task.detector, task.detector === 'faces' ? 0.5 : 0.3, 10);
    } catch (err) {
      if (err instanceof ImageLoadError) throw new ServiceError(err.status, err.code, `query_record: ${err.message}`);
      // 504 `vision_timeout` / 500 `vision_failed` as the other query methods answer (a bare 500 `internal_error`, h91)
      if (err instanceof VisionTaskError) throw queryFailed(failure(err));
      throw err;
    }
    if (c.model !== null && found.model !== c.model) throw new ServiceError(409, 'model_mismatch', mismatch(c.model, found.model));
    const objects = found.objects.filter((o) => task.keep(o.name));
    const { _base64: _b, ...echo } = query;
    const queryRecords = [{ ...echo, _width: found.width, _height: found.height, _objects: objects.map((o, i) => ({ name: o.name, id: String(i), prob: o.prob, bound_box: o.bound_box })) }];
    const want = opts.k + opts.from;
    // one record per product, as visualKNN gives (the collection's product field unless the request names another)
    const search = (vector: Float32Array) => onePerProduct(opts.productField, want, c.recordCount, (n) => this.nearest(c, vector, n, filter));
    if (!objects.length) {
      const hits = (await search(found.whole)).slice(opts.from, want);
      return this.answer(ctx, clock, queryRecords, hits, opts.fields);
    }
    const answerObjects = [];
    for (const [i, o] of objects.entries()) {
      const hits = (await search(o.vector)).slice(opts.from, want);
      answerObjects.push({
        name: o.name,
        id: String(i),
        prob: o.prob,
        bound_box: o.bound_box,
        answer_records: hits.map((h) => project(h.record, opts.fields, ['_id'])),
        answer_distances: hits.map((h) => scaled(h.distance)),
        answer_count: hits.length,
      });
    }
    return { status: status(ctx, 200, 'OK'), query_records: queryRecords, answer_objects: answerObjects, statistics: clock.done() };
  }

  /**
   * k nearest after `from`; with a product field, one record per product (the closest), found by
   * widening the search until k distinct products are seen or the collection is exhausted.
   */
  async visualKnn(ctx: SearchContext, c: CollectionRecord, query: InputRecord, opts: { k: number; from: number; fields: Fields; filter: unknown; productField?: string | undefined }): Promise<Envelope> {
    const clock = stopwatch();
    const asked = checkedFilter(opts.filter);
    const { vector, echo, itemFilter, self } = await this.queryVector(ctx, c, query, asked);
    await this.products.require(c);
    const filter = withItemFilter(asked, itemFilter);
    const want = opts.k + opts.from;
    const productField = opts.productField;
    const hits = await onePerProduct(productField, want, c.recordCount, (n) => this.nearest(c, vector, n, filter, self));
    return this.answer(ctx, clock, [echo], hits.slice(opts.from, want), opts.fields);
  }
}

/** The embedded index's state as ping says it (nothing where PostgreSQL holds the index): a restart reads it in the background. */
function indexStateNote(state: IndexLoadState | undefined): string {
  switch (state?.state) {
    case undefined:
      return '';
    case 'loaded':
      return '; index loaded';
    case 'loading':
      // a rebuild follows the read where the saved index could not be used, and takes far longer (h362)
      if (state.rebuilding) return `; index rebuilding after a restart (its saved file not used: ${state.rebuilding.reason}): ${state.rebuilding.inserted} of ${state.rebuilding.of} vectors inserted, every record read (searches wait for it, then answer 503 index_loading)`;
      return `; index loading after a restart: ${state.records} of ${state.of} records read (searches wait for it, then answer 503 index_loading)`;
    case 'not loaded':
      return '; index not loaded yet (read in turn after a restart, or by the first search)';
  }
}
