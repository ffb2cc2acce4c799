import { sharedFinish, type Finish } from '../../catalog/printing-finish.ts';
import type { ImageIntake } from '../../media/image-intake.ts';
import type { CatalogStore, CatalogSummary } from '../../store/catalog-store.ts';
import type { PriceStore } from '../../store/price-store.ts';
import type { AccountService } from '../account-service.ts';
import { polygonArea } from '../../vision/geometry/plane-geometry.ts';
import { MAX_READ_CARDS, MIN_READ_CARD_PIXELS, type CardResult } from '../../vision/engine/vision-tasks.ts';
import { echoAnswer, mapLimited, overall, recordError, stopwatch, type SearchContext } from '../envelope.ts';
import { ServiceError } from '../errors.ts';
import type { CardOutcome, InputRecord, OutputRecord, VisionService } from '../vision-service.ts';
import { readCardText, readName, type CardTextClues } from './card-text.ts';
import { installedCardNames } from '../../catalog/pokemon-card-names.ts';
import { installedSpeciesNames } from '../../catalog/pokemon-species-names.ts';
import { withNamesInEnglish } from './names-in-english.ts';
import { catalogSearch, setHintKeys, type CandidateFilter, type CatalogSearch } from './catalog-candidates.ts';
import { bestMatch, identifyAcross, MIN_LEAD, MIN_SCORE, NAME_LEVEL, TRADING_CARDS, type CardClues, type Identified } from './identify.ts';
import { artEvidence, type ArtworkReferences } from './artwork-references.ts';
import { hasCjk, SUBCATEGORY, tradingCardMatch, withoutNonAscii } from './match-fields.ts';
import type { StoredSet } from '../../store/catalog-store.ts';
import { readLabelText, type LabelReading } from './slab-label-text.ts';
import { languageName } from './language-names.ts';
import { labelClues, slabLabelObject, slabTags, type LabelMatch, type ReadLabel } from './slab-label-object.ts';
import { tcgplayerProduct } from '../../catalog/formats/mtg-common.ts';
import { ALL_OPTIONS, catalogsElsewhere, COMICS, COMICS_OPTIONS, familyOfKind, gameOfHints, hintProblem, latinAlphabet, meantName, misspeltMessage, otherAlphabetHinted, pathGameOfHints, recordHints, searchesPokemon, shopGameOfHints, showsPlayerAndTeam, SPORT, SPORT_OPTIONS, sportKey, sportOfHints, TCG, TCG_KINDS, TCG_OPTIONS, withSeriesTitledByNumber, type Family, type TcgOptions } from './recognition-families.ts';

/** Records `magic_ai` may take (document 3 §8). */
const MAGIC_AI_RECORDS = 2;

/** Photos of one request read at once (each read is several OCR runs in the workers). */
const perRequest = 2;
/** Candidates kept per card as `alternatives`. */
const ALTERNATIVES = 5;

/**
 * The distance the spec's `distances` carry: e^(−score/4) of identification's score, so 0 is
 * certain and 1 is no clue at all; a printing-level best match needs a score of 6 (distance ≤
 * 0.223) and a lead of 1 over the next; a name-level one ties with its name's other printings
 * (docs/recognition.md "Distances").
 */
export const distanceOf = (score: number): number => Number(Math.exp(-Math.max(0, score) / 4).toFixed(4));
export const MAX_MATCH_DISTANCE = distanceOf(MIN_SCORE);

type Tag = { id: number; name: string; prob: number; 'pre-filled'?: true };

/**
 * Whether an image read whole for being card-shaped, whose frame the verifier says is no card's outline,
 * holds no card: nothing identified, and nothing only cards print was read.
 */
export function wholeReadIsNoCard(read: { whole?: boolean; wholeIsCard?: boolean }, furniture: boolean, objects: readonly { _identification: { best_match: unknown } }[]): boolean {
  return read.whole === true && read.wholeIsCard === false && !furniture && !objects.some((o) => !!o._identification.best_match);
}

/** Whether the text shows what only cards print: a print code (`LOB-EN001`), a collector number over its set's total, an HP. */
export function printsCardFurniture(clues: CardClues): boolean {
  return clues.printCodes.length > 0 || clues.hp !== null || clues.numbers.some((n) => n.total !== null);
}

/**
 * A slabbed card's clues with its label's: the grader printed its number, name, year and set line
 * (a PSA label's `2022 TOPPS SERIES 1 … #1 SHOHEI OHTANI`), which the card's own front may not show
 * (a sport card's front prints no number: the label named the card, the card object nothing).
 */
export function withLabelClues(clues: CardClues, label: ReadLabel): CardClues {
  const l = labelClues(readLabelText(label.lines), label.lines.map((x) => x.text).join('\n'));
  return {
    ...clues,
    numbers: [...l.numbers, ...clues.numbers],
    names: [...l.names, ...clues.names],
    year: clues.year ?? l.year,
    game: clues.game ?? l.game,
    fullText: `${clues.fullText}\n${l.fullText}`,
  };
}

/** What a card reading shows: its text's clues and, where measured surely, its border's colour and its text box's layout. */
function cardClues(reading: NonNullable<CardResult['readings']>[number]): CardClues {
  return { ...readCardText(reading.lines), border: reading.border?.colour ?? null, borderTone: reading.border?.tone ?? null, layout: reading.layout?.layout ?? null, cardWidth: reading.cardWidth };
}

/** The identification endpoints' slab options, each charged at its endpoint's price (document 3 §4, §7). */
export type SlabOption = 'slab_id' | 'slab_grade';

/**
 * A request's context; `billing` says who pays `analyze_all`'s further cards, and at what price
 * each, and what the slab options cost (`slabPrices`); `slabUnpaid` that the account could not pay
 * for the slab option asked.
 */
export interface RecognitionContext extends SearchContext {
  billing?: { accountId: string; priceKey: string; price: number; slabPrices?: Partial<Record<SlabOption, number>> } | undefined;
  slabUnpaid?: boolean;
  /** analyze_all's further cards, charged once per record read: a record answered again (a catalog import moved under it) pays nothing twice. */
  cardCharges?: WeakMap<object, number>;
}

interface Ranked extends Identified {
  search: CatalogSearch;
  /** Other catalogs holding the same printing, folded into this candidate (identifyAcross). */
  alsoIn?: CatalogSearch[];
}

/**
 * The finish the best match's catalog row says (printing-finish.ts), where every candidate tied with it (another rarity
 * row of its code, its name's other printings) agrees and each one's row is at hand.
 */
function tiedFinish(best: Ranked | null, ranked: readonly Ranked[]): Finish | null {
  if (!best) return null;
  const tied = ranked.filter((r) => r === best || (r.search.catalog.kind === best.search.catalog.kind && distanceOf(r.score) === distanceOf(best.score)));
  const cards = tied.map((r) => r.search.detail(r.card.key)?.card);
  return cards.every((c) => c !== undefined) ? sharedFinish(best.search.catalog.kind, cards as NonNullable<(typeof cards)[number]>[]) : null;
}

/**
 * The tags a record's hints give the object that answers it: the family's hints we do not measure, returned as the
 * client gave them and marked pre-filled (a card's object, and a label's where it is the answer).
 */
function hintedTags(family: Family, record: InputRecord): Record<string, Tag[]> {
  const tags: Record<string, Tag[]> = {};
  for (const hint of family.hintTags) {
    const given = record[hint];
    // a blank one (`" "`) says nothing: no tag rather than a blank one
    if (typeof given === 'string' && given.trim()) tags[hint] = [{ id: 1, name: given, prob: 1, 'pre-filled': true }];
    // a yes-or-no hint (`Autograph: true`) in the words the tags use elsewhere
    else if (typeof given === 'boolean') tags[hint] = [{ id: given ? 1 : 0, name: given ? 'Yes' : 'No', prob: 1, 'pre-filled': true }];
  }
  return tags;
}

/** `/collectibles/v2/tcg_id` (document 3 §4): trading cards identified against the imported catalogs. */
export class RecognitionService {
  constructor(
    private readonly intake: ImageIntake,
    private readonly vision: VisionService,
    private readonly catalogs: CatalogStore,
    private readonly prices: PriceStore,
    private readonly accounts: AccountService,
    private readonly artworks?: ArtworkReferences,
    /** US dollars per unit of other currencies (LOUPE_PRICE_RATES): price_stats counts those prices. */
    private readonly priceRates: Readonly<Record<string, number>> = {},
  ) {}

  /**
   * Debits up to `cards` further cards of analyze_all: as many as the account can pay for (h245: with credits for 3 of 8
   * it got none, all or nothing). Answers how many were paid.
   */
  private async chargeCards(ctx: RecognitionContext, cards: number, read?: object): Promise<number> {
    const known = read ? ctx.cardCharges?.get(read) : undefined;
    if (known !== undefined) return known;
    const paid = await this.debitCards(ctx, cards);
    if (read) ctx.cardCharges?.set(read, paid);
    return paid;
  }

  private async debitCards(ctx: RecognitionContext, cards: number): Promise<number> {
    const b = ctx.billing;
    if (!b || b.price <= 0) return cards;
    const debit = async (n: number) => {
      try {
        await this.accounts.charge(b.accountId, b.priceKey, b.price * n);
        return true;
      } catch (err) {
        if (err instanceof ServiceError && err.status === 402) return false;
        throw err;
      }
    };
    if (await debit(cards)) return cards;
    // what the balance pays for now; a call spending beside this one may leave less by the debit: one fewer each try
    for (let n = Math.min(cards - 1, Math.floor((await this.accounts.getAccount(b.accountId)).credits / b.price)); n > 0; n--) {
      if (await debit(n)) return n;
    }
    return 0;
  }

  /**
   * Debits a slab option once for the call, at its endpoint's price (`collectibles.slab_id`,
   * `collectibles.slab_grade`); false when the account cannot pay. The refund, for a call that then
   * fails, is the caller's.
   */
  private async chargeSlab(ctx: RecognitionContext, option: SlabOption): Promise<{ paid: boolean; price: number }> {
    const b = ctx.billing;
    const price = b?.slabPrices?.[option] ?? 0;
    if (!b || price <= 0) return { paid: true, price: 0 };
    try {
      await this.accounts.charge(b.accountId, `collectibles.${option}`, price);
      return { paid: true, price };
    } catch (err) {
      if (err instanceof ServiceError && err.status === 402) return { paid: false, price: 0 };
      throw err;
    }
  }

  async tcgId(ctx: RecognitionContext, records: InputRecord[], options: TcgOptions, family: Family = TCG): Promise<Record<string, unknown>> {
    const clock = stopwatch();
    if (options.analyze_all && records.length > 1) throw new ServiceError(400, 'too_many_records', `analyze_all takes 1 record per request; ${records.length} were sent.`);
    if (options.magic_ai && records.length > MAGIC_AI_RECORDS) throw new ServiceError(400, 'too_many_records', `magic_ai takes at most ${MAGIC_AI_RECORDS} records per request; ${records.length} were sent.`);
    // an asynchronous request's records copied as they are would lose their options without a word
    const own: readonly string[] = family === SPORT ? SPORT_OPTIONS : family === COMICS ? COMICS_OPTIONS : TCG_OPTIONS;
    const hints = recordHints(family);
    for (const [i, record] of records.entries()) {
      const misplaced = own.find((o) => Object.hasOwn(record, o));
      if (misplaced) throw new ServiceError(400, 'invalid_request', `records[${i}].${misplaced}: the synchronous endpoints take their options beside the records, for the whole call; only asynchronous requests take them on each record. Send it beside "records".`);
      for (const key of Object.keys(record)) {
        const meant = meantName(key, [...hints, ...own]);
        if (meant) throw new ServiceError(400, 'invalid_request', misspeltMessage(`records[${i}].${key}`, meant, hints, hints.includes(meant) ? 'on each record it is for' : 'beside "records"'));
      }
    }
    const catalogs = await this.tcgCatalogs(family);
    // a state an operator ends by importing a catalog: said to retry in an hour, as every 503 says when (the document
    // promised Retry-After on it, and retry middleware that reads none tried again at once, h91)
    if (!catalogs.length) throw new ServiceError(503, 'no_catalog', family.noCatalog + catalogsElsewhere(family, await this.catalogs.list()), undefined, { 'retry-after': '3600' });
    ctx = { ...ctx, cardCharges: new WeakMap() };
    const slabOption = slabOptionOf(options);
    // analyze_all answers for every card (tcgRecord); otherwise only the largest card's text is read
    const reads = await this.vision.cardEach(records, 'read', { ...(slabOption ? { labelSearch: true } : {}), ...(options.analyze_all ? { everyCard: true } : {}), names: searchesPokemon(catalogs) });
    // a slab option costs its endpoint's price once a call, when a label was read, beside a card or alone (document 3 §4: "extra credits as for /slab_id")
    const slabCharge = slabOption && reads.some((o) => 'ok' in o && !!o.ok.label) ? await this.chargeSlab(ctx, slabOption) : null;
    if (slabCharge && !slabCharge.paid) ctx = { ...ctx, slabUnpaid: true };
    let outcomes;
    try {
      outcomes = await this.onSteadyCatalogs(catalogs, () => this.tcgCatalogs(family), (using) => mapLimited(records, perRequest, (record, i) => this.tcgRecord(ctx, record, reads[i]!, options, using, echoAnswer(record), family)));
    } catch (err) {
      if (slabCharge?.price && ctx.billing) await this.accounts.refund(ctx.billing.accountId, slabCharge.price);
      throw err;
    }
    // the extra is kept only when a successful record carries what was read on the label; a label read in a record that
    // then failed (unknown set_code, every card too small) or left off the answer is refunded (docs/api-decisions.md)
    if (slabCharge?.price && ctx.billing && !outcomes.some((r) => r._status.code === 200 && LABELLED.has(r))) await this.accounts.refund(ctx.billing.accountId, slabCharge.price);
    const failures = outcomes.flatMap((r) => (r._status.code >= 400 ? [r._status] : []));
    const echoed = Object.fromEntries(ALL_OPTIONS.filter((o) => options[o] !== undefined).map((o) => [o, options[o]]));
    return { status: overall(ctx, failures, outcomes.length), records: withRequestIds(ctx, outcomes), ...echoed, statistics: clock.done() };
  }

  /** `/sport_id` (document 3 §4): sport cards identified against the imported checklists. `magic_ai` is accepted and does nothing here: no such model ships. */
  async sportId(ctx: RecognitionContext, records: InputRecord[], options: TcgOptions): Promise<Record<string, unknown>> {
    return this.tcgId(ctx, records, options, SPORT);
  }

  /**
   * `/comics_id` (document 3 §4): the largest comic in each image, identified against the imported
   * comics catalogs by its title and issue number. A record's `lang` other than `en` finds no
   * match: the catalogs here are English only (docs/api-decisions.md).
   */
  async comicsId(ctx: RecognitionContext, records: InputRecord[], options: TcgOptions): Promise<Record<string, unknown>> {
    return this.tcgId(ctx, records, options, COMICS);
  }

  /**
   * Each catalog's sets, read once per catalog version: every record's candidates need them; for a
   * catalog without sets, the set codes and names its cards carry, which tell a `set_code` hint unknown.
   */
  private readonly setCache = new Map<string, Promise<{ sets: StoredSet[]; cardSetCodes: ReadonlySet<string> | undefined }>>();

  private search(catalog: CatalogSummary, filter: CandidateFilter = {}): Promise<CatalogSearch> {
    const key = `${catalog.id}:${catalog.version}`;
    let known = this.setCache.get(key);
    if (!known) {
      for (const k of this.setCache.keys()) if (k.startsWith(`${catalog.id}:`)) this.setCache.delete(k);
      known = this.catalogs.sets(catalog.id).then(async (sets) => ({
        sets,
        cardSetCodes: sets.length === 0 ? setHintKeys(await this.catalogs.cardSets(catalog.id)) : undefined,
      }));
      known.catch(() => this.setCache.delete(key));
      this.setCache.set(key, known);
    }
    return Promise.all([known, this.artworks?.of(catalog) ?? null]).then(async ([k, art]) => ({ ...(await catalogSearch(this.catalogs, catalog, filter, k.sets, k.cardSetCodes)), art }));
  }

  /**
   * Loads in advance what a first identification would load in its request: the name lists, each
   * catalog's sets and artwork references, and the first pages of its indexes (one lookup by name and
   * by number). The server runs it before it listens (docs/recognition.md "The first scan after a
   * start"): without it the first scan took about 250 ms more than the next.
   */
  async warm(): Promise<void> {
    installedSpeciesNames();
    installedCardNames();
    for (const catalog of await this.catalogs.list()) {
      const { source } = await this.search(catalog);
      await source.byName('Pikachu', 1);
      await source.byNumber('25');
    }
  }

  /**
   * The `read` card task on one image (a queued request's), its failure as the record's status;
   * `labelSearch` for the slab options. Only the largest card is read: a queued request answers for
   * it alone (`analyze_all` is not applied there). `preview`: the long edge of the request's preview of the photo, 0 for
   * none (LOUPE_REQUEST_PREVIEWS).
   */
  read(bytes: () => Promise<Buffer>, labelSearch: boolean | 'no-card' = false, names = true, preview = 0): Promise<CardOutcome> {
    return this.vision.cardOutcome(bytes, 'read', { ...(labelSearch ? { labelSearch } : {}), names, ...(preview ? { preview } : {}) });
  }

  /** The `label` card task on one image (a queued request's `slab_id` / `slab_grade`), with its preview as {@link read}'s. */
  label(bytes: () => Promise<Buffer>, preview = 0): Promise<CardOutcome> {
    return this.vision.cardOutcome(bytes, 'label', preview ? { preview } : {});
  }

  /** The imported catalogs a label's card may be in: every kind identification knows. */
  slabCatalogs(): Promise<CatalogSummary[]> {
    const kinds = [...TCG.kinds, ...SPORT.kinds, ...COMICS.kinds];
    return this.catalogs.list().then((all) => all.filter((c) => kinds.includes(c.kind)));
  }

  /**
   * `/slab_id` (document 3 §4) and `/slab_grade` (`simple`: company and grade only): the one grading
   * label in each image, read, and the catalog card it names when an imported catalog has it. No
   * catalog is needed.
   */
  async slabId(ctx: SearchContext, records: InputRecord[], simple = false): Promise<Record<string, unknown>> {
    const clock = stopwatch();
    const catalogs = simple ? [] : await this.slabCatalogs();
    const labels = await this.vision.cardEach(records, 'label');
    const outcomes = simple ? await mapLimited(records, perRequest, (record, i) => this.slabRecord(ctx, record, labels[i]!, catalogs, echoAnswer(record), simple)) : await this.onSteadyCatalogs(catalogs, () => this.slabCatalogs(), (using) => mapLimited(records, perRequest, (record, i) => this.slabRecord(ctx, record, labels[i]!, using, echoAnswer(record), simple)));
    const failures = outcomes.flatMap((r) => (r._status.code >= 400 ? [r._status] : []));
    return { status: overall(ctx, failures, outcomes.length), records: withRequestIds(ctx, outcomes), statistics: clock.done() };
  }

  /** One record of `/slab_id` or `/slab_grade`, from its `label` card task; `base` as for {@link tcgRecord}. */
  async slabRecord(ctx: SearchContext, record: InputRecord, outcome: CardOutcome, catalogs: CatalogSummary[], base: Record<string, unknown> = echoAnswer(record), simple = false): Promise<OutputRecord> {
    if ('error' in outcome) return { ...base, _status: recordError(ctx, outcome.error.text, outcome.error.code) };
    const read = outcome.ok;
    const sized = { ...base, _width: read.width, _height: read.height };
    if (!read.found || !read.label) return { ...sized, _objects: [], _status: recordError(ctx, 'No grading label was found in the image', 404) };
    const reading = readLabelText(read.label.lines);
    const match = simple ? null : await this.labelMatch(reading, read.label, await Promise.all(catalogs.map((c) => this.search(c))));
    const kind = match?.fields.subcategory;
    // the finish the label prints, else the catalog's for the card it names, as a card beside the label carries it
    // (`slab_grade` answers company and grade only; a comic has no such tag)
    const finish = simple || (match && !match.family.hintTags.includes('Foil/Holo')) ? null : (reading.finish ?? match?.finish ?? null);
    return {
      ...sized,
      _status: { code: 200, text: 'OK' },
      ...(kind ? { Category: `${match.family.categoryPath}/${kind}` } : {}),
      _objects: [slabLabelObject(1, read.label, reading, read, match, simple, finish ? { 'Foil/Holo': [{ id: 1, name: finish, prob: 1 }] } : {})],
      'Graded Slab': [{ id: 1, name: 'yes', prob: 1 }],
    };
  }

  /** The catalog card a label names (its number, name, year and language as clues), when one is the best match. */
  private async labelMatch(reading: LabelReading, label: ReadLabel, searches: CatalogSearch[]): Promise<(LabelMatch & { family: Family; catalogId: string; cardKey: string; finish: Finish | null }) | null> {
    const clues = labelClues(reading, label.lines.map((l) => l.text).join('\n'));
    if (!clues.numbers.length && !clues.names.length) return null;
    const ranked = await this.rank(clues, searches.filter((s) => ofTheGame(s.catalog, clues) && holdsPrintingsOf(s.catalog, clues)), 1, false);
    // the likeliest candidate's family's rule: a comic's series or a player's name alone names no issue or card (h110:
    // a CGC label of `AMAZING TESTER #999` was named the #4)
    const rule = ranked[0] ? familyOfKind(ranked[0].search.catalog.kind).rule : TRADING_CARDS;
    const best = bestMatch(ranked, rule) as Ranked | null;
    if (!best) return null;
    const d = best.search.detail(best.card.key)!;
    const family = familyOfKind(best.search.catalog.kind);
    const fields = family.match(best.search.catalog.kind, best.search.catalog.name, d.card, d.set);
    return { fields: this.withTcgplayerLink(fields, best, await this.tcgplayerProducts([best])), distance: distanceOf(best.score), family, catalogId: best.search.catalog.id, cardKey: best.card.key, finish: tiedFinish(best, ranked) };
  }

  /** The imported catalogs a family searches. */
  /**
   * `answer` on `first`, and again on the catalogs as they now are where an import committed meanwhile: its cards
   * may be the new rows and their sets the old version's (cached by version), "Pikachu M4 … SV 151 M3" (h122). A few
   * times at most; what `answer` charges it must charge once (RecognitionContext.cardCharges).
   */
  async onSteadyCatalogs<T>(first: CatalogSummary[], load: () => Promise<CatalogSummary[]>, answer: (catalogs: CatalogSummary[]) => Promise<T>): Promise<T> {
    let catalogs = first;
    let out = await answer(catalogs);
    for (let again = 0; again < 3; again++) {
      const now = await load();
      if (now.length === catalogs.length && now.every((c, i) => c.id === catalogs[i]!.id && c.version === catalogs[i]!.version)) break;
      catalogs = now;
      out = await answer(catalogs);
    }
    return out;
  }

  tcgCatalogs(family: Family = TCG): Promise<CatalogSummary[]> {
    return this.catalogs.list().then((all) => all.filter((c) => family.kinds.includes(c.kind)));
  }

  /**
   * One record of `/tcg_id` (or `/sport_id`, `/comics_id`), from its card task's `read` outcome:
   * the synchronous endpoints and the asynchronous type share it. `base` is what the result record
   * starts from (the synchronous endpoints echo the record).
   */
  async tcgRecord(ctx: RecognitionContext, record: InputRecord, outcome: CardOutcome, options: TcgOptions, catalogs: CatalogSummary[], base: Record<string, unknown> = echoAnswer(record), family: Family = TCG): Promise<OutputRecord> {
    const wrongHint = hintProblem(record, family);
    if (wrongHint) return { ...base, _status: recordError(ctx, wrongHint.message, 400) };
    if ('error' in outcome) return { ...base, _status: recordError(ctx, outcome.error.text, outcome.error.code) };
    const read = outcome.ok;
    const sized = { ...base, _width: read.width, _height: read.height };
    // a slab option's label read where no card was found is the record's answer, as on /slab_id and /card_ocr_id
    // (h136, h137: a CGC comic or a PSA sport card in its slab was a 404 that /slab_id read and named)
    const labelAnswer = async (): Promise<OutputRecord | null> => {
      const slabOption = slabOptionOf(options);
      if (!slabOption || !read.label) return null;
      // a label the account could not pay to read: the record's 404 says so (h143: a bare "no comic" hid it)
      if (ctx.slabUnpaid) return { ...sized, _objects: [], _status: recordError(ctx, `No ${family === COMICS ? 'comic' : 'card'} was found in the image; ${slabOption}: a grading label was found but not read: not enough credits`, 404) };
      const reading = readLabelText(read.label.lines);
      const match = await this.labelMatch(reading, read.label, await Promise.all(catalogs.map((c) => this.search(c))));
      const kind = match?.fields.subcategory;
      // the `Foil/Holo` a card beside the label would carry (cardObject), by the same precedence: a client's hint as
      // given, else the label's finish words, else the catalog row's (h302: the label answered had none); and the
      // record's other hints, pre-filled, as a card's object returns them (h303: `Side` and `Rotation` were dropped)
      const finish = family.hintTags.includes('Foil/Holo') ? (reading.finish ?? match?.finish ?? null) : null;
      const more: Record<string, Tag[]> = { ...(finish ? { 'Foil/Holo': [{ id: 1, name: finish, prob: 1 }] } : {}), ...hintedTags(family, record) };
      const object = slabLabelObject(1, read.label, reading, read, match, slabOption === 'slab_grade', more);
      // the item the label names priced as a card's best match is, its graded sales narrowed to the label's company and
      // grade (h165: asked, they were left out without a word)
      const priceNotes: string[] = [];
      if (options.price_stats && match && slabOption === 'slab_id') {
        const slab = reading.company !== 'OTHER' ? { company: reading.company, grade: reading.grade, gradeless: reading.grade === null && /AUTH/i.test(reading.verbal_grade ?? '') } : null;
        const stats = await this.prices.priceStats(match.catalogId, match.cardKey, { rates: this.priceRates, slab });
        if (stats.length) (object._identification as { best_match: Record<string, unknown> }).best_match.price_stats = stats;
        const left = Object.entries(await this.prices.leftOutCurrencies(match.catalogId, match.cardKey, { rates: this.priceRates })).map(([c, n]) => `${n} in ${c}`);
        if (left.length) priceNotes.push(`price_stats of ${match.cardKey} leave out ${left.join(', ')}: no rate to US dollars is configured (LOUPE_PRICE_RATES)`);
        else if (!stats.length) priceNotes.push(`no prices are known for ${match.cardKey}: no price file imported names it (loupe prices import)`);
        else if (slab) {
          const note = slabPriceNote(slab, stats, match.cardKey);
          if (note) priceNotes.push(note);
        }
      } else if (options.price_stats) {
        priceNotes.push(match ? 'price_stats: slab_grade reads the grade alone; slab_id prices the item its label names' : 'price_stats: the label names no item of the imported catalogs');
      }
      const out: OutputRecord = {
        ...sized,
        _status: { code: 200, text: [`OK; ${slabOption}: no ${family === COMICS ? 'comic' : 'card'} was found beside the grading label, which is the answer`, ...priceNotes].join('; ') },
        ...(kind ? { Category: `${match.family.categoryPath}/${kind}` } : match ? { Category: match.family.categoryPath } : {}),
        _objects: [object],
        'Graded Slab': [{ id: 1, name: 'yes', prob: 1 }],
      };
      LABELLED.add(out);
      return out;
    };
    // a comic said as a comic: its cover is found where it fills a portrait photo (h103: "No card" on /comics_id)
    if (!read.found || !read.cards?.length) return (await labelAnswer()) ?? { ...sized, _objects: [], _status: recordError(ctx, family === COMICS ? 'No comic was found in the image: send a photo of its cover filling the frame, upright' : 'No card was found in the image', 404) };

    const setCode = typeof record.set_code === 'string' && record.set_code.trim() ? record.set_code : undefined;
    // comics: a record's `lang` limits the search to that language's editions, and the catalogs here are English
    // a locale as browsers and phones send it (`en-US`, `en_GB`) is its language (h103: en-US found no English comic)
    const otherLanguage = family === COMICS && typeof record.lang === 'string' && record.lang.trim().toLowerCase().split(/[-_]/)[0] !== 'en' ? record.lang.trim() : null;
    // a Category or Subcategory hint naming a game (document 3 §4: hints "make identification faster and more precise")
    const game = family === TCG ? gameOfHints(record) : undefined;
    // or a shop's own game, by its catalog's name, as its matches' Category names it (h329: not read, and a Pokémon match)
    const ownGame = family === TCG && !game ? shopGameOfHints(record, catalogs) : undefined;
    // or, as a path (`Trading Card Game/Dragon Ball`), a game neither known nor imported: kept to, so nothing is found
    // (h333: ignored, and the card matched to a Pokémon card whose Category replaced the hint)
    const pathGame = family === TCG && !game && !ownGame ? pathGameOfHints(record) : undefined;
    const searched = game ? catalogs.filter((c) => !(TCG_KINDS as readonly string[]).includes(c.kind) || c.kind === game) : ownGame ? catalogs.filter((c) => c.kind === 'csv' && c.name === ownGame) : pathGame ? [] : catalogs;
    const gameName = game ? SUBCATEGORY[game] : (ownGame ?? pathGame);
    // a hint naming a game none of whose catalogs is imported: said, or the empty answer reads as "not in the catalog"
    const gameMissing = (game !== undefined && !catalogs.some((c) => c.kind === game)) || pathGame !== undefined;
    // an Alphabet hint of `other`: the catalogs holding Latin-alphabet printings only are left out, as for a card read
    // as Japanese (holdsPrintingsOf): a hint narrows the search
    const otherAlphabet = otherAlphabetHinted(record);
    // the hint that named the game (or, on /sport_id, the sport) the search kept to, as the client wrote it
    const sport = family === SPORT ? sportOfHints(record) : undefined;
    const subcategoryNames = (named: (hint: Record<string, unknown>) => unknown) => typeof record.Subcategory === 'string' && !!named({ Subcategory: record.Subcategory });
    const narrowedBy = game || ownGame || pathGame ? (subcategoryNames((r) => gameOfHints(r) ?? shopGameOfHints(r, catalogs) ?? pathGameOfHints(r)) ? 'Subcategory' : 'Category') : sport ? (subcategoryNames(sportOfHints) ? 'Subcategory' : 'Category') : null;
    const searches = otherLanguage ? [] : await Promise.all(searched.map((c) => this.search(c, { setCode, includeOversized: options.include_mtg_oversized === true, includeDigital: options.include_mtg_digital === true })));
    if (setCode && !otherLanguage && !searches.some((s) => s.hasSet)) return { ...sized, _objects: [], _status: recordError(ctx, gameName ? `Unknown set_code "${setCode}": no imported ${gameName} catalog (the game the ${narrowedBy} hint names) has that set.` : `Unknown set_code "${setCode}": no imported catalog has that set.`, 400) };

    const setNeeds = searches.find((s) => s.setNeeds)?.setNeeds;
    let readings = options.analyze_all ? (read.readings ?? []) : (read.readings ?? []).filter((r) => r.index === 0);
    // the cards analyze_all looked at and could not read for their size (said: h245 heard a plain OK for 3 of 6)
    const smallSkipped = options.analyze_all ? Math.max(0, Math.min(read.cards.length, MAX_READ_CARDS) - (read.readings?.length ?? 0)) : 0;
    // analyze_all is charged per card (document 3 §8): the first is the call's, each further one a call's price again
    let unpaid = 0;
    if (readings.length > 1) {
      const paid = await this.chargeCards(ctx, readings.length - 1, read);
      unpaid = readings.length - 1 - paid;
      readings = readings.slice(0, 1 + paid);
    }
    const slabShown = !!slabOptionOf(options) && !ctx.slabUnpaid;
    const objects = [];
    const priceNotes: string[] = [];
    let notHeld = false;
    let alphabetLeftOut = false;
    let furniture = false;
    for (const reading of readings) {
      const card = read.cards[reading.index]!;
      const given = family.clues ? family.clues(cardClues(reading), reading.lines) : cardClues(reading);
      // a comic titled with digits alone (`1602`) is that series, not its issue, where a catalog holds the series (h322)
      const own = family === COMICS ? await withSeriesTitledByNumber(given, reading.lines, async (norm) => (await Promise.all(searches.map((s) => s.hasName(norm)))).some(Boolean)) : given;
      // a slab's label (read when the client asked for it) names the card inside: its number, name and set line count as the card's
      const clues = reading.index === 0 && card.kind === 'slab' && read.label && slabShown ? withLabelClues(own, read.label) : own;
      // a sport card's checklist number (`#50`) is as much a card's print: with a player's name no longer enough for a
      // best match, a card cropped tight was "no card" (h110)
      furniture ||= printsCardFurniture(clues) || (family === SPORT && clues.numbers.some((n) => n.form === 'hash'));
      const held = searches.filter((s) => ofTheGame(s.catalog, clues) && holdsPrintingsOf(s.catalog, clues));
      if (held.length < searches.filter((s) => ofTheGame(s.catalog, clues)).length) notHeld = true;
      const usable = otherAlphabet ? held.filter((s) => !latinOnly(s.catalog)) : held;
      if (usable.length < held.length) alphabetLeftOut = true;
      const found = keepSport(await this.rank(clues, usable, family.nameLines, family.hashNumbers, reading.art), sport);
      // a base front prints no number: its player on a line of his own and his team on another are as much a card's print
      furniture ||= family === SPORT && showsPlayerAndTeam(reading.lines.map((l) => l.text), found.slice(0, ALTERNATIVES).flatMap((r) => r.search.detail(r.card.key)?.card ?? []));
      const ranked = family === COMICS ? variantPrinted(found, clues.fullText) : found;
      objects.push(await this.cardObject(reading.index, card, read, reading, clues, ranked, record, options, family, priceNotes, !!slabOptionOf(options) && !ctx.slabUnpaid));
    }
    if (!objects.length) {
      // cards were found (localize lists them) but none is large enough: say so, not that there is none
      const n = read.cards.length;
      // a comic said as a comic (h136: "No card was found … 1 smaller card" on /comics_id)
      const what = family === COMICS ? 'comic' : 'card';
      const found = n ? `; ${n} smaller ${what}${n > 1 ? 's were' : ' was'} found: send a closer photo${n > 1 ? `, or fewer ${what}s at a time` : ''}` : '';
      // in the photo's own pixels, as analyze_all's note (h247)
      return { ...sized, _objects: [], _status: recordError(ctx, `No ${what} was found in the image that is large enough to read (${read.minReadWidth ?? MIN_READ_CARD_PIXELS} px across at least)${found}`, 404) };
    }
    // Read whole only for being card-shaped, its frame no card's outline (the verifier knows trading
    // cards, not comic covers): a card only when its text names a card, or shows what only cards print
    // (a print code, a collector number over a set total, HP). A 3:4 phone photo whose card the detector
    // missed was answered as one whole-frame card with alternatives a stray number brought in; a drawn
    // card of no imported game (or of one a hint left out) was "no card" though its print code was read.
    if (family !== COMICS && wholeReadIsNoCard(read, furniture, objects)) return (await labelAnswer()) ?? { ...sized, _objects: [], _status: recordError(ctx, 'No card was found in the image', 404) };
    // A comic is read whole when no card-like outline is found (covers are no trading cards); a
    // whole photo with no text read on it shows no comic to identify (a cover photographed small on
    // a table was an "OK" with nothing in it, and charged).
    if (family === COMICS && read.whole === true && objects.every((o) => !o._identification.best_match && !o._ocr.full_text.trim())) {
      return (await labelAnswer()) ?? { ...sized, _objects: [], _status: recordError(ctx, 'No comic was found in the image: no text could be read on it (send a closer photo of the cover)', 404) };
    }
    const slab = read.cards[readings[0]!.index]!.kind === 'slab';
    const notes = (['magic_ai'] as const).filter((o) => options[o]);
    // slab_id / slab_grade: the largest card's label; its company and grade as the card's tags, and with slab_id the label as its own object
    const slabOption = slabOptionOf(options);
    let labelObject: Record<string, unknown> | null = null;
    let slabNote: string | null = null;
    let labelled = false;
    if (slabOption && !read.label) slabNote = `${slabOption}: no grading label was found beside the card`;
    else if (slabOption && ctx.slabUnpaid) slabNote = `${slabOption}: the label was not read: not enough credits`;
    else if (slabOption && read.label && objects[0]!.id === 1) {
      labelled = true;
      const reading = readLabelText(read.label.lines);
      const tags = slabTags(reading);
      Object.assign(objects[0]!._tags, tags);
      objects[0]!._tags_simple.push(...Object.values(tags).flatMap((t) => t.map((x) => x.name)));
      if (slabOption === 'slab_id') {
        const match = await this.labelMatch(reading, read.label, searches);
        // the label's object as /slab_id gives it (docs/api-decisions.md "Slab options"): with the finish the label
        // prints, else the catalog's for the card it names (it had none beside a card, though /slab_id's and the label
        // answered alone carry it); a comic's label has no such tag
        const finish = family.hintTags.includes('Foil/Holo') && (!match || match.family.hintTags.includes('Foil/Holo')) ? (reading.finish ?? match?.finish ?? null) : null;
        labelObject = slabLabelObject(objects.length + 1, read.label, reading, read, match, false, finish ? { 'Foil/Holo': [{ id: 1, name: finish, prob: 1 }] } : {});
      }
    }
    // a grading label read beside the largest card makes it a slab's, whatever the detector called its holder (h103: a
    // slab whose card was read whole said `Graded Slab` no beside its label's PSA 10)
    const graded = slab || !!read.label;
    if (graded && objects[0]?.id === 1 && objects[0]._tags.Graded?.[0]?.name !== 'yes') {
      objects[0]._tags.Graded = [{ id: 1, name: 'yes', prob: 1 }];
      objects[0]._tags_simple = Object.values(objects[0]._tags).flatMap((t) => t.map((x) => x.name));
    }
    // a comic's answer says comic (h249: "1 more card found" of a second cover)
    const item = family === COMICS ? 'comic' : 'card';
    const text = [
      'OK',
      ...(notes.length ? [`${notes.join(' and ')} ${notes.length > 1 ? 'are' : 'is'} not available on this server (not charged)`] : []),
      ...(slabNote ? [slabNote] : []),
      ...(otherLanguage ? [`no imported catalog holds "${otherLanguage}" editions`] : []),
      ...(notHeld ? ['the imported Pokémon catalogs hold no Japanese, Korean or Chinese printings'] : []),
      ...(alphabetLeftOut ? [`Alphabet "${String(record.Alphabet)}": the imported Pokémon catalogs hold Latin-alphabet printings only, and were not searched (sent without it, they are)`] : []),
      ...(unpaid ? [`analyze_all: ${unpaid} more ${item}${unpaid > 1 ? 's' : ''} found, not analyzed: not enough credits`] : []),
      // in the photo's own pixels: a large photo is read scaled down (h246: cards 421 px across said "under 120 px")
      ...(smallSkipped ? [`analyze_all: ${smallSkipped} smaller ${item}${smallSkipped > 1 ? 's' : ''} found (under ${read.minReadWidth ?? MIN_READ_CARD_PIXELS} px across in this image), not analyzed: send a closer photo, or crops of them`] : []),
      ...(options.analyze_all && read.cards.length > MAX_READ_CARDS ? [`analyze_all: ${read.cards.length - MAX_READ_CARDS} more ${item}${read.cards.length - MAX_READ_CARDS > 1 ? 's' : ''} found, not analyzed: at most ${MAX_READ_CARDS} ${item}s a record (send the rest as crops)`] : []),
      // a set_code that left out the card read was a bare OK with nothing in it (h279): said, with how to search every set
      // (not where the set's own printings tie, which the tie note says, nor where nothing was searched)
      ...(setCode && !setNeeds && !notHeld && !alphabetLeftOut && !otherLanguage && objects.every((o) => !o._identification.best_match && !o._identification.distances.some((d) => d <= MAX_MATCH_DISTANCE)) ? [`set_code "${setCode}": no card of that set matches what was read (sent without set_code, every set is searched)`] : []),
      ...(setNeeds ? [`set_code "${setCode}" holds only ${setNeeds === 'include_mtg_oversized' ? 'oversized' : 'digital-only'} printings, left out without ${setNeeds}`] : []),
      ...(gameMissing ? [pathGame ? `no imported catalog of "${pathGame}": the game the ${narrowedBy} hint names (loupe catalog import --kind csv)` : `no imported ${gameName} catalog: the game the ${narrowedBy} hint names (loupe catalog import)`] : []),
      // a game or sport hint that left out every card read, as a set_code's (h329: a bare OK, read as "not in the catalog")
      ...(narrowedBy && !gameMissing && !setCode && !notHeld && !alphabetLeftOut && !otherLanguage && objects.every((o) => !o._identification.best_match && !o._identification.distances.some((d) => d <= MAX_MATCH_DISTANCE))
        ? [`${narrowedBy} "${String(record[narrowedBy])}": no ${gameName ?? sport} card matches what was read (sent without it, every ${gameName ? 'game' : 'sport'} is searched)`]
        : []),
      // one note for a card the photo shows twice (analyze_all: two copies said "no prices are known for" it twice)
      ...new Set(priceNotes),
      ...tieNotes(objects),
    ].join('; ');
    // the largest card's match; with analyze_all, where it has none, the next card's that has one
    const best = objects.find((o) => o._identification.best_match)?._identification.best_match ?? null;
    const kind = best?.subcategory ?? null;
    // a match names the record's category: its game or sport, or (comics have no subcategory) the family alone
    const category = kind ? `${family.categoryPath}/${kind}` : best ? family.categoryPath : null;
    const out: OutputRecord = {
      ...sized,
      _status: { code: 200, text },
      ...(category ? { Category: category } : {}),
      _objects: labelObject ? [...objects, labelObject] : objects,
      'Graded Slab': [{ id: 1, name: graded ? 'yes' : 'no', prob: 1 }],
    };
    if (labelled) LABELLED.add(out);
    return out;
  }

  /**
   * `/card_ocr_id` (document 3 §4): the largest card's and the largest slab label's text, and what
   * the text alone identifies: the card against the catalogs when its clues match one (else the
   * name and year as read), the label's name, year, grade and certificate number. Fields not
   * read are null. No catalog is needed.
   */
  async cardOcrId(ctx: SearchContext, records: InputRecord[]): Promise<Record<string, unknown>> {
    const clock = stopwatch();
    const catalogs = await this.tcgCatalogs();
    const reads = await this.vision.cardEach(records, 'read', { labelSearch: 'no-card', names: searchesPokemon(catalogs) });
    const outcomes = await this.onSteadyCatalogs(catalogs, () => this.tcgCatalogs(), (using) => mapLimited(records, perRequest, (record, i) => this.ocrRecord(ctx, record, reads[i]!, using)));
    const failures = outcomes.flatMap((r) => (r._status.code >= 400 ? [r._status] : []));
    return { status: overall(ctx, failures, outcomes.length), records: withRequestIds(ctx, outcomes), statistics: clock.done() };
  }

  /** One record of `/card_ocr_id`; `outcome` and `base` as for {@link tcgRecord}. */
  async ocrRecord(ctx: SearchContext, record: InputRecord, outcome: CardOutcome, catalogs: CatalogSummary[], base: Record<string, unknown> = echoAnswer(record)): Promise<OutputRecord> {
    if ('error' in outcome) return { ...base, _status: recordError(ctx, outcome.error.text, outcome.error.code) };
    const read = outcome.ok;
    const sized = { ...base, _width: read.width, _height: read.height };
    const reading = read.readings?.find((r) => r.index === 0);
    // the largest slab label is answered for too (spec 3 §4): a label read where no card was found is the record's answer
    const labelOnly = () => (read.label ? { ...sized, _status: { code: 200, text: 'OK' }, _objects: [ocrLabelObject(read, read.label, 1)], 'Graded Slab': [{ id: 1, name: 'yes', prob: 1 }] } : undefined);
    if (!read.found || !read.cards?.length || !reading) return labelOnly() ?? { ...sized, _objects: [], _status: recordError(ctx, 'No card was found in the image', 404) };
    const card = read.cards[0]!;
    const clues = cardClues(reading);
    const searches = await Promise.all(catalogs.filter((c) => ofTheGame(c, clues) && holdsPrintingsOf(c, clues)).map((c) => this.search(c)));
    const best = bestMatch(await this.rank(clues, searches, 2, false, reading.art)) as Ranked | null;
    if (!best && wholeReadIsNoCard(read, printsCardFurniture(clues), [])) return labelOnly() ?? { ...sized, _objects: [], _status: recordError(ctx, 'No card was found in the image', 404) };
    const matched = best ? tradingCardMatch(best.search.catalog.kind, best.search.catalog.name, best.search.detail(best.card.key)!.card, best.search.detail(best.card.key)!.set) : null;
    // the record's and the card's game, and graded where a label was read beside it, as /tcg_id says them (h211: a
    // client parsing both endpoints lost the game on this one)
    const kind = matched?.subcategory ?? null;
    const graded = card.kind === 'slab' || !!read.label ? 'yes' : 'no';
    const tags: Record<string, Tag[]> = { ...(kind ? { Category: [{ id: 1, name: kind, prob: 1 }] } : {}), Graded: [{ id: 1, name: graded, prob: 1 }] };
    const objects: Record<string, unknown>[] = [
      {
        name: 'Card',
        id: 1,
        bound_box: boxOf(card.quad, read.width, read.height),
        prob: Number(card.prob.toFixed(3)),
        area: polygonShare(card.quad, read.width, read.height),
        'Top Category': [{ id: 1, name: 'Trading Card', prob: 1 }],
        _ocr: { full_text: clues.fullText, lang: clues.language, lang_name: languageName(clues.language), texts: reading.lines.map((l) => ({ polygon: l.polygon, text: l.text, prob: Number(l.prob.toFixed(3)) })) },
        _tags: tags,
        _tags_simple: Object.values(tags).flatMap((t) => t.map((x) => x.name)),
        _identification: {
          best_match: {
            name: matched?.name ?? readName(clues.names, clues.language),
            full_name: matched?.full_name ?? null,
            year: matched?.year ?? clues.year,
            grade: null,
            certificate_number: null,
            subcategory: matched?.subcategory ?? null,
          },
          alternatives: [],
          distances: best ? [distanceOf(best.score)] : [],
        },
      },
    ];
    if (read.label) objects.push(ocrLabelObject(read, read.label, 2));
    return { ...sized, _status: { code: 200, text: 'OK' }, ...(kind ? { Category: `${TCG.categoryPath}/${kind}` } : {}), _objects: objects, 'Graded Slab': [{ id: 1, name: graded, prob: 1 }] };
  }

  /**
   * `/detect` (localization only) and `/process` (localization with the tags measured without
   * reading: `Graded`): every card the detector finds, largest first, and each slab label read
   * beside the largest (docs/api-decisions.md "Collectibles recognition").
   */
  async detect(ctx: SearchContext, records: InputRecord[], withTags: boolean): Promise<Record<string, unknown>> {
    const clock = stopwatch();
    const found = await this.vision.cardEach(records, 'localize');
    const outcomes = records.map((record, i) => this.detectRecord(ctx, record, found[i]!, withTags));
    const failures = outcomes.flatMap((r) => (r._status.code >= 400 ? [r._status] : []));
    return { status: overall(ctx, failures, outcomes.length), records: withRequestIds(ctx, outcomes), statistics: clock.done() };
  }

  private detectRecord(ctx: SearchContext, record: InputRecord, outcome: CardOutcome, withTags: boolean): OutputRecord {
    const base = echoAnswer(record);
    if ('error' in outcome) return { ...base, _status: recordError(ctx, outcome.error.text, outcome.error.code) };
    const found = outcome.ok;
    const sized = { ...base, _width: found.width, _height: found.height };
    if (!found.found || !found.cards?.length) return { ...sized, _objects: [], _status: recordError(ctx, 'No card was found in the image', 404) };
    const objects: Record<string, unknown>[] = [];
    for (const c of found.cards) {
      const graded = c.kind === 'slab' ? 'yes' : 'no';
      objects.push({
        name: 'Card',
        id: objects.length + 1,
        bound_box: boxOf(c.quad, found.width, found.height),
        prob: Number(c.prob.toFixed(3)),
        area: polygonShare(c.quad, found.width, found.height),
        'Top Category': [{ id: 1, name: 'Trading Card', prob: 1 }],
        ...(withTags ? { _tags: { Graded: [{ id: 1, name: graded, prob: 1 }] }, _tags_simple: [graded] } : {}),
      });
      if (c.labelBox) {
        const [x0, y0, x1, y1] = c.labelBox;
        objects.push({ name: 'Slab Label', id: objects.length + 1, bound_box: c.labelBox, prob: 1, area: Number((((x1 - x0) * (y1 - y0)) / (found.width * found.height)).toFixed(4)), 'Top Category': [{ id: 1, name: 'Slab Label', prob: 1 }] });
      }
    }
    const slab = found.cards[0]!.kind === 'slab';
    return { ...sized, _status: { code: 200, text: 'OK' }, _objects: objects, 'Graded Slab': [{ id: 1, name: slab ? 'yes' : 'no', prob: 1 }] };
  }

  /**
   * `/analyze` (all-in-one): `/tcg_id` with every card read and identified (`analyze_all`), the language and the price
   * statistics; one record a request, as `analyze_all` takes. One of those options sent with another value is refused:
   * it was run and echoed as true, the opposite of what was sent, and each card charged (h245).
   */
  async analyze(ctx: RecognitionContext, records: InputRecord[], sent: Record<string, unknown> = {}, given: TcgOptions = {}): Promise<Record<string, unknown>> {
    const fixed = ['analyze_all', 'lang', 'price_stats'].filter((o) => o in sent && sent[o] !== true && sent[o] !== null);
    if (fixed.length) {
      throw new ServiceError(400, 'invalid_request', `/analyze always runs with analyze_all, lang and price_stats: ${fixed.map((o) => `${o} ${JSON.stringify(sent[o])}`).join(', ')} cannot be changed here (use /tcg_id with the options wanted).`, fixed.map((field) => ({ field, message: 'always true on /analyze' })));
    }
    return this.tcgId(ctx, records, { ...given, analyze_all: true, lang: true, price_stats: true });
  }

  /** Candidates of every catalog, best first; scores are on one scale across catalogs. */
  private async rank(given: CardClues, searches: CatalogSearch[], nameLines = 2, hashNumbers = false, art?: readonly string[]): Promise<Ranked[]> {
    const clues = searches.some((s) => s.catalog.kind === 'pokemon') && (given.game === null || given.game === 'pokemon') ? withNamesInEnglish(given) : given;
    const catalogs = searches.map((search) => ({ source: search.source, art: art?.length && search.art ? artEvidence(search.art, art) : undefined, tag: search }));
    return (await identifyAcross(clues, catalogs, ALTERNATIVES + 1, nameLines, hashNumbers)).map(({ tag, ...m }) => ({ ...m, search: tag }));
  }

  /** The TCGplayer products the imported prices name for these matches, by catalog id and card key (none looked up for a card whose catalog gives its page). */
  private async tcgplayerProducts(matches: readonly Ranked[]): Promise<Map<string, Map<string, string>>> {
    const byCatalog = new Map<string, string[]>();
    for (const r of matches) {
      if (r.search.detail(r.card.key)?.card.links.tcgplayer) continue;
      byCatalog.set(r.search.catalog.id, [...(byCatalog.get(r.search.catalog.id) ?? []), r.card.key]);
    }
    return new Map(await Promise.all([...byCatalog].map(async ([id, keys]) => [id, await this.prices.tcgplayerProducts(id, keys)] as const)));
  }

  /** The catalog's own links first; the TCGplayer page its imported TCGplayer prices name where it gives none. */
  private withTcgplayerLink<T extends Record<string, unknown>>(fields: T, r: Ranked, products: Map<string, Map<string, string>>): T {
    const product = products.get(r.search.catalog.id)?.get(r.card.key);
    const links = (fields.links ?? {}) as Record<string, string>;
    if (product && !links.tcgplayer) (fields as Record<string, unknown>).links = { ...links, tcgplayer: tcgplayerProduct(product) };
    return fields;
  }

  /** One identified card as the record's object; `priceNotes` gets what price_stats left out, for the record's status. */
  private async cardObject(index: number, card: NonNullable<CardResult['cards']>[number], read: CardResult, reading: NonNullable<CardResult['readings']>[number], clues: CardTextClues, ranked: Ranked[], record: InputRecord, options: TcgOptions, family: Family = TCG, priceNotes: string[] = [], labelShown = false) {
    const bound_box = boxOf(card.quad, read.width, read.height);
    const best = bestMatch(ranked, family.rule) as Ranked | null;
    // graded prices narrow to the label's company and grade where the record shows them (a slab option asked and paid):
    // on the largest card, whatever its kind (h249: a comic read whole under its CGC 9.8 label showed the grade and was
    // priced by every CGC sale)
    const label = labelShown && read.label ? readLabelText(read.label.lines) : null;
    // an AUTHENTIC label (no grade number) is priced by the company's sales without a grade, not all of them (h145)
    const slab = label && label.company !== 'OTHER' ? { company: label.company, grade: label.grade, gradeless: label.grade === null && /AUTH/i.test(label.verbal_grade ?? '') } : null;
    // At distance 1 the clues against a candidate outweigh those for it: still worth listing when its name was
    // read (a French card's species, its number misread), noise when only a number or a year brought it in.
    // A sport card's or a comic's `#4` alone names nothing (every checklist and series has one): those list only named candidates.
    const named = (r: Ranked) => r.evidence.name >= NAME_LEVEL.likeness;
    const alternatives = ranked.filter((r) => r !== best && (family.hashNumbers ? named(r) : distanceOf(r.score) < 1 || named(r))).slice(0, ALTERNATIVES);
    const products = await this.tcgplayerProducts([...(best ? [best] : []), ...alternatives]);
    // the same printing in two catalogs was one candidate: said, as it points at an import made twice (h252)
    const twice = best?.alsoIn?.length ? best : ranked[0]?.alsoIn?.length ? ranked[0] : undefined;
    if (twice) priceNotes.push(`${[twice.card.name, twice.card.number].filter(Boolean).join(' ')} is in ${twice.alsoIn!.length + 1} imported catalogs (${[twice.search, ...twice.alsoIn!].map((c) => c.catalog.name).join(', ')}), answered from ${twice.search.catalog.name}: one import of it is enough (loupe catalog list, loupe catalog delete)`);
    const asMatch = async (r: Ranked, isBest = false): Promise<Record<string, unknown> & { subcategory: string | null; price_stats?: unknown[] }> => {
      const d = r.search.detail(r.card.key)!;
      const m: Record<string, unknown> & { subcategory: string | null; price_stats?: unknown[] } = family.match(r.search.catalog.kind, r.search.catalog.name, d.card, d.set);
      this.withTcgplayerLink(m, r, products);
      // the best match only (document 3 §4: price_stats → _identification.best_match.price_stats), computed in SQL by the
      // store (docs/prices.md): USD, and other currencies at the configured rates; a slab read on the largest card prices
      // its `graded` entries by sales of the same company and grade. A card with no price data gets no price_stats, not []
      if (options.price_stats && isBest) {
        const stats = await this.prices.priceStats(r.search.catalog.id, r.card.key, { rates: this.priceRates, slab: index === 0 ? slab : null });
        if (stats.length) m.price_stats = stats;
      }
      return options.ignore_non_ascii ? withoutNonAscii(m) : m;
    };
    const bestFields = best ? await asMatch(best, true) : null;
    if (best && options.price_stats) {
      const left = await this.prices.leftOutCurrencies(best.search.catalog.id, best.card.key, { rates: this.priceRates });
      const counts = Object.entries(left).map(([c, n]) => `${n} in ${c}`);
      if (counts.length) priceNotes.push(`price_stats of ${best.card.key} leave out ${counts.join(', ')}: no rate to US dollars is configured (LOUPE_PRICE_RATES)`);
      // asked and none: said, so a shop owner does not look for a fault (`loupe prices import` brings them)
      else if (!bestFields?.price_stats) priceNotes.push(`no prices are known for ${best.card.key}: no price file imported names it (loupe prices import)`);
      // a slab's graded figures are its company's and grade's: where there are none, or the grade was not read, said
      // (h250: a CGC 9 with no CGC 9 sales lost its graded entries without a word, and a session priced it by overall)
      else if (slab && index === 0) {
        const note = slabPriceNote(slab, bestFields.price_stats, best.card.key);
        if (note) priceNotes.push(note);
      }
    }
    const subcategory = bestFields?.subcategory ?? undefined;
    const latin = latinAlphabet(clues.fullText, clues.language);
    const tags: Record<string, Tag[]> = {
      Category: subcategory ? [{ id: 1, name: subcategory, prob: 1 }] : [],
      Graded: [{ id: 1, name: card.kind === 'slab' ? 'yes' : 'no', prob: 1 }],
      ...(clues.fullText ? { Alphabet: [{ id: 1, name: latin ? 'latin' : 'other', prob: 1 }] } : {}),
      ...(!options.lang && clues.language ? { Language: [{ id: 1, name: clues.language, prob: 1 }] } : {}),
    };
    // a printing made in one finish only says whether it is foil (printing-finish.ts), where every candidate tied with it
    // (another rarity row of its code, its name's other printings) agrees; a client's hint, below, goes first
    const catalogFinish = tiedFinish(best, ranked);
    // the grading label beside the largest card says the copy's finish where it prints one (`- HOLO`, `REV.FOIL`,
    // `NON-HOLO`: slab-label-finish.ts), which the catalog row cannot (a common graded as its reverse holo); read as
    // `Graded` is, with or without a slab option, on the families that have the tag (not comics)
    const labelFinish = index === 0 && read.label && family.hintTags.includes('Foil/Holo') ? (label ?? readLabelText(read.label.lines)).finish : null;
    const finish = labelFinish ?? catalogFinish;
    if (finish) tags['Foil/Holo'] = [{ id: 1, name: finish, prob: 1 }];
    // a client's hint goes before what was read
    Object.assign(tags, hintedTags(family, record));
    for (const t of family.alwaysTags ?? []) tags[t] ??= [];
    const area = polygonShare(card.quad, read.width, read.height);
    return {
      name: family.objectName,
      id: index + 1,
      bound_box,
      prob: Number(card.prob.toFixed(3)),
      area,
      'Top Category': [{ id: 1, name: family.topCategory, prob: 1 }],
      _tags: tags,
      _tags_simple: Object.values(tags).flatMap((t) => t.map((x) => x.name)),
      // ignore_non_ascii: the lines read in CJK characters are left out of the text too, as from the match
      _ocr: {
        full_text: options.ignore_non_ascii ? clues.fullText.split('\n').filter((l) => !hasCjk(l)).join('\n') : clues.fullText,
        ...(options.lang ? { lang: clues.language, lang_name: languageName(clues.language) } : {}),
        texts: reading.lines.filter((l) => !(options.ignore_non_ascii && hasCjk(l.text))).map((l) => ({ polygon: l.polygon, text: l.text, prob: Number(l.prob.toFixed(3)) })),
      },
      _identification: {
        best_match: bestFields,
        alternatives: await Promise.all(alternatives.map((r) => asMatch(r))),
        distances: [...(best ? [best] : []), ...alternatives].map((r) => distanceOf(r.score)),
      },
    };
  }
}

/**
 * A best match the evidence does not set above its alternatives: so many printings scored the same
 * that the one named first is a coin toss (a helper's shop saw a common Kecleon named for the
 * illustration rare beside it, with a plain OK). Said per card, with the tied printings' count.
 */
export function tieNotes(objects: { id: number; _identification: { best_match: unknown; distances: number[] } }[]): string[] {
  return objects.flatMap((o) => {
    const [first, ...rest] = o._identification.distances;
    const which = objects.length > 1 ? ` (card ${o.id})` : '';
    // no best match because printings close enough to be one tie: said, not a bare OK beside a null best_match
    // (h119: LOB-EN001 read exactly, its two printings tied, "OK")
    if (!o._identification.best_match) {
      const level = first !== undefined && first <= MAX_MATCH_DISTANCE ? rest.filter((d) => d === first).length + 1 : 0;
      return level > 1 ? [`no best_match${which}: ${level} alternatives tie at the same distance, close enough to be one; the text read and the artwork do not tell these printings apart`] : [];
    }
    const tied = first !== undefined ? rest.filter((d) => d === first).length : 0;
    if (!tied) return [];
    return [`best_match${which} ties with ${tied} alternative${tied > 1 ? 's' : ''} at the same distance: the text read and the artwork do not tell these printings apart`];
  });
}

/** Records of the identification endpoints whose answer carries a slab label's fields: what the slab options are paid for. */
const LABELLED = new WeakSet<OutputRecord>();

/** The slab option asked: `slab_id` reads the whole label (and covers `slab_grade`), `slab_grade` the company and grade. */
function slabOptionOf(options: TcgOptions): SlabOption | null {
  return options.slab_id ? 'slab_id' : options.slab_grade ? 'slab_grade' : null;
}

/** Whether a catalog holds Latin-alphabet printings only: the Pokémon data project's (as {@link holdsPrintingsOf} says). */
const latinOnly = (catalog: CatalogSummary): boolean => catalog.kind === 'pokemon';

/**
 * Whether a catalog can hold the card read: Japanese, Korean and Chinese Pokémon sets are numbered
 * apart from the international ones the Pokémon catalog holds, so a number and total alike there
 * name another card (3 of 3 false matches on the labelled train photos; none of their 35 Asian
 * cards is in the catalog).
 */
function holdsPrintingsOf(catalog: CatalogSummary, clues: CardTextClues): boolean {
  return !(latinOnly(catalog) && (clues.language === 'ja' || clues.language === 'zh' || clues.language === 'ko'));
}

/**
 * The candidates of the sport a hint names (document 3 §4: hints narrow the search); cards whose
 * checklist names no sport stay. A basketball hint was matched to a baseball card, and the record's
 * `Category` then said `Sport Card/Baseball` over the client's own.
 */
function keepSport(ranked: Ranked[], sport: string | undefined): Ranked[] {
  if (!sport) return ranked;
  return ranked.filter((r) => {
    const named = r.search.detail(r.card.key)?.card.fields.sport;
    return typeof named !== 'string' || !named || sportKey(named) === sport;
  });
}

/**
 * Whether a catalog is of the game the card's printed furniture names (card-text.ts `game`): a
 * Japanese Pokémon card numbered 005/071 is not the MTG card numbered 5 in a set of 71. Catalogs of
 * kinds that are no game (sports, comics, csv) and cards of no known game keep every catalog.
 */
function ofTheGame(catalog: CatalogSummary, clues: CardTextClues): boolean {
  // a shop's CSV catalog names no game: the game the text tells does not rule it out (a Japanese shop's
  // catalog of Japanese Pokémon printings was never searched for a card read as Pokémon)
  return !clues.game || !(TCG_KINDS as readonly string[]).includes(catalog.kind) || catalog.kind === 'csv' || catalog.kind === clues.game;
}

/** `[xmin, ymin, xmax, ymax]` around an outline, in whole pixels inside the image. */
function boxOf(q: [number, number][], w: number, h: number): number[] {
  const xs = q.map((p) => p[0]);
  const ys = q.map((p) => p[1]);
  return [Math.max(0, Math.round(Math.min(...xs))), Math.max(0, Math.round(Math.min(...ys))), Math.min(w, Math.round(Math.max(...xs))), Math.min(h, Math.round(Math.max(...ys)))];
}

/** The outline's area as a share of the image, at most 1: an outline may run a little past the frame (a card cut by it). */
function polygonShare(q: [number, number][], w: number, h: number): number {
  return Number(Math.min(1, Math.abs(polygonArea(q)) / (w * h)).toFixed(4));
}

/** Every record's `_status` carries the request id (spec 3 §2, §7), the successful ones too. */
function withRequestIds<R extends { _status: { code: number; text: string } }>(ctx: { requestId: string }, records: R[]): R[] {
  return records.map((r) => ({ ...r, _status: { ...r._status, request_id: ctx.requestId } }));
}

/** `/card_ocr_id`'s slab-label object: the label's text and what it names (no catalog needed). */
function ocrLabelObject(read: { width: number; height: number }, found: NonNullable<CardResult['label']>, id: number): Record<string, unknown> {
  const label = readLabelText(found.lines);
  const [x0, y0, x1, y1] = found.box;
  return {
    name: 'Slab Label',
    id,
    bound_box: found.box,
    prob: 1,
    area: Number((((x1 - x0) * (y1 - y0)) / (read.width * read.height)).toFixed(4)),
    'Top Category': [{ id: 1, name: 'Slab Label', prob: 1 }],
    _ocr: { full_text: found.lines.map((l) => l.text).join('\n'), lang: label.lang, lang_name: languageName(label.lang), texts: found.lines.map((l) => ({ polygon: l.polygon, text: l.text, prob: Number(l.prob.toFixed(3)) })) },
    _tags: { Company: [{ id: 1, name: label.company, prob: label.companyProb }] },
    _tags_simple: [label.company],
    _identification: { best_match: { name: label.name, full_name: label.full_name, year: label.year, grade: label.grade, certificate_number: label.certificate_number, subcategory: null }, alternatives: [], distances: [] },
  };
}

/**
 * What a slab's graded figures lack, for the record's status: its company's sales at its grade (none known: no graded
 * entries), or its grade (not read: every sale of the company). h250: a CGC 9 with no CGC 9 sales lost its graded
 * entries without a word, and a session derived a slab's price from `overall`.
 */
function slabPriceNote(slab: { company: string; grade: number | null; gradeless: boolean }, stats: readonly unknown[], key: string): string | null {
  const graded = stats.some((e) => (e as { stats_type?: unknown }).stats_type === 'graded');
  if (slab.grade === null && !slab.gradeless) return graded ? `price_stats: the label's grade was not read: graded covers every ${slab.company} sale` : `price_stats: no ${slab.company} sales are known for ${key}: no graded entries`;
  return graded ? null : `price_stats: no ${slab.company} ${slab.gradeless ? 'AUTHENTIC (no grade)' : String(slab.grade)} sales are known for ${key}: no graded entries`;
}

/**
 * A comic's variant named on its cover (`TURNER VARIANT`, `VARIANT A`) singles it out among the issue's covers the other
 * clues tie: the one whose variant words the text holds (the longest where several do), the others a lead behind it
 * (h249: Civil War #5 printing TURNER VARIANT tied with the regular cover and the sketch variant, $10 against $25).
 * Without such words the covers stay tied: the regular cover prints none.
 */
function variantPrinted(ranked: Ranked[], fullText: string): Ranked[] {
  const top = ranked[0];
  if (!top) return ranked;
  // the covers of the top's issue: its series and number (h256: another series' tied "Variant" was promoted over it)
  const tied = ranked.filter((r) => r.score > top.score - MIN_LEAD && r.card.nameNorm === top.card.nameNorm && r.card.numberNorm === top.card.numberNorm);
  if (tied.length < 2) return ranked;
  // line by line, at a line's start or end: the recogniser drops spaces, so letters run across words (`DISCOVERA…`
  // holds COVERA) and, joined, across lines (VARIANT over AMAZING holds VARIANTA, h255)
  const lines = fullText.split('\n').map((l) => l.toUpperCase().replace(/[^A-Z0-9]/g, ''));
  const onLine = (w: string) => lines.some((l) => l.startsWith(w) || l.endsWith(w));
  const words = (r: Ranked): string => {
    const f = r.search.detail(r.card.key)?.card.fields ?? {};
    const variant = typeof f.variant === 'string' ? f.variant : typeof f.title === 'string' ? /#[^()]*\(([^()]+)\)\s*$/.exec(f.title)?.[1] ?? '' : '';
    return variant.toUpperCase().replace(/[^A-Z0-9]/g, '');
  };
  const printed = tied.map((r) => ({ r, w: words(r) })).filter((x) => x.w.length >= 4 && onLine(x.w)).sort((a, b) => b.w.length - a.w.length);
  const chosen = printed[0];
  if (!chosen || (printed[1] && printed[1].w.length === chosen.w.length)) return ranked;
  const rest = ranked.filter((r) => r !== chosen.r).map((r) => (tied.includes(r) ? { ...r, score: Math.min(r.score, chosen.r.score - MIN_LEAD) } : r));
  return [chosen.r, ...rest.sort((a, b) => b.score - a.score)];
}
