import { setImmediate as nextTurn } from 'node:timers/promises';
import { BlockedWork } from '../../queue/blocked-work.ts';
import type { QueueLog } from '../../queue/queue-workers.ts';
import type { CollectionStore } from '../../store/collection-store.ts';
import type { TextRow } from '../../store/collection-text-store.ts';
import { fromJson } from '../../store/database.ts';
import { recordText } from '../../text-search/record-text.ts';
import { seenText, TOKENS_VERSION, type Observed, type SeenPart } from '../../text-search/seen-tokens.ts';
import type { VisionService } from '../vision-service.ts';

/** A record whose image could not be looked at is tried this many times in all. */
export const maxSeenAttempts = 3;
const batchSize = 20;
/** Keys whose observations one query of step 4 reads (about 12 ms in SQLite). */
const lookAgainSpan = 2000;
const logEvery = 100;
/** A failed pass is tried again after a minute, then twice as long each time it fails again, at most an hour. */
const retryFirstMs = 60_000;
const retryMaxMs = 3_600_000;

interface Progress {
  written: number;
  seen: number;
  noImage: number;
  failed: number;
  retokenised: number;
  /** Rows looked at again for a part their first look did not have. */
  reseen: number;
}

/**
 * Text search for records stored before it existed (issue 20), in the background of the server
 * and of `loupe worker`, in three steps that each resume where a stop left them (every row is
 * committed on its own):
 * 1. records without a text row get one with their own words, at once searchable by them;
 * 2. rows whose image was not looked at get the `index` task on their `_url` (records sent as
 *    base64 or a server file kept no image: `no_image`); a refused image fails at once, a
 *    download or worker failure is tried again up to `maxSeenAttempts` times;
 * 3. rows seen by an older tokeniser are re-tokenised from their stored observation, no image;
 * 4. rows seen without a part the server now looks for (an upgrade added the framed view, or the
 *    operator turned OCR on) are looked at again when their record has a `_url`; a failure keeps
 *    the first look, and is tried again up to `maxSeenAttempts` times.
 * One image at a time, so requests keep the other workers. The pass ends when nothing is left:
 * new records get their row when they are stored, so there is nothing to poll for afterwards.
 */
export class SeenBackfill {
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Passes failed in a row, and the next try's timer. */
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: CollectionStore,
    private readonly vision: VisionService,
    private readonly seen: readonly SeenPart[],
    log: QueueLog = () => {},
    /** Why the pass must stop now (a newer release upgraded the database: its rows are that release's to write), else undefined. */
    blocked?: () => Promise<string | undefined>,
  ) {
    this.log = log;
    this.gate = new BlockedWork(blocked, log, 'text search backfill stopped');
  }

  private readonly log: QueueLog;
  private readonly gate: BlockedWork;

  /** Stops the pass, saying why once, when the database belongs to a newer release. */
  private async halted(): Promise<boolean> {
    if (!this.stopped && (await this.gate.reason())) this.stopped = true;
    return this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.clearRetry();
    this.running ??= this.pass()
      .then(() => {
        this.failures = 0;
      })
      .catch((err: unknown) => {
        // a database away or overloaded a moment (53200 with many collections on PostgreSQL, h369) stopped the pass
        // until the next start; it resumes where it stopped, so it is tried again, later each time
        this.failures++;
        const inMs = Math.min(retryMaxMs, retryFirstMs * 2 ** (this.failures - 1));
        this.log('error', 'text search backfill stopped', { err: String(err), retry_in_s: Math.round(inMs / 1000) });
        if (!this.stopped) {
          this.retry = setTimeout(() => this.start(), inMs);
          this.retry.unref();
        }
      })
      .finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // a pass failing meanwhile sees `stopped` and plans no try
    this.clearRetry();
    await this.running;
  }

  private clearRetry(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
  }

  /** Works until nothing is left (or `limit` rows are done); returns what it did. */
  async pass(limit = Infinity): Promise<Progress> {
    const p: Progress = { written: 0, seen: 0, noImage: 0, failed: 0, retokenised: 0, reseen: 0 };
    const done = () => p.written + p.seen + p.noImage + p.failed + p.retokenised + p.reseen;
    const report = (final = false) => {
      if (!final && done() % logEvery !== 0) return;
      // a pass cut by a stop says so, with what is left counted as it resumes at the next start (it said "done")
      if (final && done() > 0) this.log('info', this.stopped ? 'text search backfill: stopped, resumes at the next start' : done() >= limit ? 'text search backfill: paused' : 'text search backfill: done', { ...p });
      else if (!final) this.log('info', 'text search backfill: progress', { ...p });
    };
    while (!(await this.halted()) && done() < limit) {
      const n = await this.writeMissing(Math.min(batchSize, limit - done()), p);
      if (n === 0) break;
      report();
    }
    if (!(await this.halted())) {
      const stuck = await this.store.text.giveUpUnfinished(this.db, maxSeenAttempts, `not seen: the server stopped each of the ${maxSeenAttempts} times this image was being looked at`);
      if (stuck) this.log('warn', 'text search backfill: images given up on, the server having stopped while looking at each of them every time', { rows: stuck, attempts: maxSeenAttempts });
    }
    while (!(await this.halted()) && done() < limit) {
      const n = await this.lookAtImages(Math.min(batchSize, limit - done()), p, report);
      if (n === 0) break;
    }
    while (!(await this.halted()) && done() < limit) {
      const n = await this.retokenise(Math.min(batchSize, limit - done()), p, report);
      if (n === 0) break;
    }
    // keys walked in spans: each query reads a bounded number of observations, and a row whose
    // second look failed is passed over until the next pass
    const last = this.seen.length && !this.stopped ? await this.store.text.lastKey(this.db) : 0;
    for (let after = 0; after < last && !(await this.halted()) && done() < limit; after += lookAgainSpan) {
      await this.lookAgain(after, after + lookAgainSpan, p, () => done() < limit, report);
      await nextTurn();
    }
    report(true);
    return p;
  }

  private get db() {
    return this.store.store.db;
  }

  /** Step 1: a text row with the record's own words for each record without one. */
  private async writeMissing(n: number, p: Progress): Promise<number> {
    const rows = await this.store.text.recordsWithoutText(this.db, n);
    for (const r of rows) {
      const { body, lang } = recordText(fromJson<Record<string, unknown>>(r.data), r.product_field);
      // the record may have gone (or been given its row by an insert) since the read
      await this.store.text.writeIfMissing(this.db, r.collection_id, r.key, { seen: '', body, ocr: '', lang, colors: [], observed: null, seenVersion: 0, seenState: 'pending' });
      p.written++;
      await nextTurn();
    }
    return rows.length;
  }

  /** Step 2: the images of rows not looked at yet, one at a time. */
  private async lookAtImages(n: number, p: Progress, report: () => void): Promise<number> {
    const rows = await this.store.text.toLookAt(this.db, n, maxSeenAttempts);
    for (const r of rows) {
      if (this.stopped) break;
      const key = r.key;
      if (!(await this.store.text.claim(this.db, key, r.attempts))) continue;
      const data = fromJson<Record<string, unknown>>(r.data);
      const current = await this.store.text.get(this.db, key);
      if (!current) continue;
      if (typeof data._url !== 'string') {
        await this.update(r.collection_id, key, { ...current, seenState: 'no_image', lastError: null });
        p.noImage++;
      } else {
        const error = await this.lookAt(r.collection_id, key, data._url, data, r.product_field);
        if (!error) p.seen++;
        else {
          await this.update(r.collection_id, key, { ...current, seenState: 'failed', lastError: error.text.slice(0, 500) }, error.final ? maxSeenAttempts : undefined);
          p.failed++;
          this.log('warn', 'text search backfill: image not seen', { collection: r.collection_id, key, error: error.text, final: error.final });
        }
      }
      report();
    }
    return rows.length;
  }

  /**
   * Step 3: rows tokenised by an older version: what was seen again from the stored observation,
   * and the record's own words again from its data (a lexicon change adds codes to both).
   */
  private async retokenise(n: number, p: Progress, report: () => void): Promise<number> {
    const rows = await this.store.text.tokenisedBefore(this.db, TOKENS_VERSION, n);
    for (const r of rows) {
      if (this.stopped) break;
      const key = r.key;
      const current = await this.store.text.get(this.db, key);
      if (!current) continue;
      const { body, lang } = recordText(fromJson<Record<string, unknown>>(r.data), r.product_field);
      const seen = current.observed ? seenText(current.observed as Observed) : { seen: current.seen, ocr: current.ocr, colors: current.colors };
      await this.update(r.collection_id, key, { ...current, seen: seen.seen, ocr: seen.ocr, colors: seen.colors, body, lang, seenVersion: TOKENS_VERSION }, undefined, r.product_field);
      p.retokenised++;
      // a re-tokenising pass over a large collection runs for minutes: its progress was logged only at its end (h345)
      report();
      // steps 1 and 3 read no image, and SQLite's driver is synchronous: without a turn given back after each row the
      // pass held the event loop to its end (3,000 rows: 3.4–6.1 s without a timer or a request served, and a SIGTERM
      // not heard until it ended; h345)
      await nextTurn();
    }
    return rows.length;
  }

  /** Step 4: rows with keys in `(after, upTo]` seen without a part now looked for, looked at again while `more()`. */
  private async lookAgain(after: number, upTo: number, p: Progress, more: () => boolean, report: () => void): Promise<void> {
    const rows = await this.store.text.partlySeen(this.db, this.seen, after, upTo, maxSeenAttempts);
    for (const r of rows) {
      if (this.stopped || !more()) break;
      if (!(await this.store.text.claim(this.db, r.key, r.attempts))) continue;
      const data = fromJson<Record<string, unknown>>(r.data);
      const error = await this.lookAt(r.collection_id, r.key, String(data._url), data, r.product_field);
      if (!error) p.reseen++;
      else {
        // what the first look found stays searchable; a refused image is not asked for again
        if (error.final) await this.store.text.setAttempts(this.db, r.key, maxSeenAttempts);
        p.failed++;
        this.log('warn', 'text search backfill: image not seen again', { collection: r.collection_id, key: r.key, error: error.text, final: error.final });
      }
      report();
    }
  }

  /**
   * The `index` task on a record's image; when it is seen, its row is written as seen. Otherwise
   * the error, `final` when the image itself was refused (gone, not an image, a private address).
   */
  private async lookAt(collectionId: string, key: number, url: string, data: Record<string, unknown>, productField: string | null): Promise<{ text: string; final: boolean } | null> {
    const [o] = await this.vision.each('index', [{ _url: url }], { seen: [...this.seen] });
    if (o && 'ok' in o) {
      const t = seenText(o.ok.observed);
      const { body, lang } = recordText(data, productField);
      await this.update(collectionId, key, { seen: t.seen, body, ocr: t.ocr, lang, colors: t.colors, observed: o.ok.observed, seenVersion: TOKENS_VERSION, seenState: 'done', lastError: null }, undefined, productField);
      return null;
    }
    const error = o && 'error' in o ? o.error : { code: 500, text: 'no result' };
    return { text: error.text, final: error.code >= 400 && error.code < 500 };
  }

  /** Writes a row unless its record went meanwhile (the text store's `rewrite`). */
  private async update(collectionId: string, key: number, row: TextRow, attempts?: number, productField?: string | null): Promise<void> {
    // a row written at this version has its body made from the record as stored when it is written (colour words read it: own-words.ts)
    await this.store.text.rewrite(this.db, collectionId, key, row, attempts, productField === undefined ? undefined : (data) => recordText(data, productField));
  }
}
