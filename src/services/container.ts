import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { MediaDeletionStore } from '../store/media-deletions.ts';
import { removeAbandonedStaging, sweptStagingAfterMs } from '../store/import-staging.ts';
import type { Config } from '../config/config.ts';
import { AddressPolicy } from '../media/address-policy.ts';
import { ImageIntake } from '../media/image-intake.ts';
import { existingMediaSecret, loadMediaSecret, MediaLinks } from '../media/media-links.ts';
import { MediaStore } from '../media/media-store.ts';
import { AccountStore } from '../store/account-store.ts';
import { CardSessionStore, refoldSessionSearch } from '../store/card-session-store.ts';
import { assertWritable, NotWritable, openStore, type Store } from '../store/database.ts';
import { SchemaWatch } from '../store/migrate.ts';
import { AccountErasure } from './account-erasure.ts';
import { AccountService } from './account-service.ts';
import { ServiceError } from './errors.ts';
import { CollectionService } from './collection-service.ts';
import { CollectionStore } from '../store/collection-store.ts';
import { PgCollectionQueries } from '../index/pg-collection-queries.ts';
import { EmbeddedCollectionQueries, type IndexLoadOptions } from '../index/embedded-collection-queries.ts';

export type { IndexLoadOptions };
import { ProductRule } from './fashion/product-rule.ts';
import { filterFailuresAre400 } from './visual-search/filters.ts';
import { VisualSearchService } from './visual-search/visual-search-service.ts';
import { RecordThumbnails } from './visual-search/record-thumbnails.ts';
import { TextSearchService } from './text-search/text-search-service.ts';
import { SeenBackfill } from './text-search/seen-backfill.ts';
import type { MediaAuditReport } from './media-audit.ts';
import { leftOverWork, type LeftOverWork } from '../store/left-over-work.ts';
import { MediaHousekeeping } from './media-housekeeping.ts';
import { CardSessionService } from './card-session-service.ts';
import { ImageMatchingService } from './image-matching-service.ts';
import { MediaService } from './media-service.ts';
import { RateLimiter } from './rate-limiter.ts';
import { VisionService } from './vision-service.ts';
import { VisionEngine } from '../vision/engine/vision-engine.ts';
import { activePack } from '../vision/clip/clip-pack.ts';
import { RequestStore } from '../store/request-store.ts';
import { QueueSignal } from '../queue/queue-signal.ts';
import { HandlerRegistry } from '../queue/job-handler.ts';
import { QueueWorkers, type QueueLog } from '../queue/queue-workers.ts';
import { RequestService } from './request-service.ts';
import { ResultLinks } from './result-links.ts';
import { FlowService, FlowsJob } from './jobs/flows-job.ts';
import { UpscalerJob } from './jobs/upscaler-job.ts';
import { CardGraderJob } from './jobs/card-grader-job.ts';
import { CatalogService } from './catalog-service.ts';
import { CatalogImageStore } from '../store/catalog-image-store.ts';
import { ArtworkReferences } from './recognition/artwork-references.ts';
import { CatalogStore } from '../store/catalog-store.ts';
import { PriceStore } from '../store/price-store.ts';
import { RecognitionService } from './recognition/recognition-service.ts';
import { CollectiblesJob } from './jobs/collectibles-job.ts';
import { LockBudgetWatch } from './lock-budget-watch.ts';
import { readLockBudget } from '../store/pg-lock-budget.ts';

/** How long one readiness check answers every `/ready` probe. */
const readyCheckMs = 1000;

export interface Services {
  store: Store;
  accounts: AccountService;
  /** An account erased with everything it holds (`loupe account delete`). */
  erasure: AccountErasure;
  collections: CollectionService;
  visualSearch: VisualSearchService;
  textSearch: TextSearchService;
  /** Text search for records stored before it (started with the queue). */
  seenBackfill: SeenBackfill;
  cardSessions: CardSessionService;
  imageMatching: ImageMatchingService;
  media: MediaService;
  mediaAudit: (options?: { decode?: boolean }) => Promise<MediaAuditReport>;
  deleteRequest: (id: string) => Promise<{ deleted: string; files: number; files_not_found: number; refunded: number }>;
  /** What `deleteRequest` would answer, nothing removed (`loupe request delete --dry-run`). */
  requestDeletion: (id: string) => Promise<{ deleted: string; files: number; files_not_found: number; refunded: number }>;
  leftOverWork: () => Promise<LeftOverWork>;
  vision: VisionService;
  rateLimiter: RateLimiter;
  requests: RequestService;
  flows: FlowService;
  catalogs: CatalogService;
  recognition: RecognitionService;
  /** Job handlers by type; grading and recognition add theirs. */
  registry: HandlerRegistry;
  /** Job runner, webhook dispatcher and retention sweeper of this process; started by the caller. */
  queue: QueueWorkers;
  /**
   * Readiness: the database answers a write that changes nothing and the media folder takes a
   * file, within 3 s; else a 503 ServiceError naming which (its `cause` the full reason, for the log). What `/ready` answers for load balancers.
   */
  ready(): Promise<void>;
  /** The database said its file is damaged: `ready()` fails from now on (no retry mends it). */
  databaseDamaged(): void;
  /** Why this process must stop serving (a newer release upgraded its database while it ran), else undefined; read every 10 s. */
  outdatedRelease(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Wires adapters into services. The server and the admin CLI share this, so both see one set of rules. */
export async function openServices(config: Config, options: { longRunning?: boolean; log?: QueueLog; upgrade?: boolean; create?: boolean; takesRequests?: boolean; indexLoad?: IndexLoadOptions } = {}): Promise<Services> {
  // The CLI opens services for account work: a broken pack must not stop it, only the server.
  const pack = await activePack(config.dataDir).catch((err: unknown) => {
    if (options.longRunning) throw err;
    return undefined;
  });
  // Before the store opens: a damaged secret file stops start-up without leaving a pool behind. A missing
  // one is made once the store opened: a start that failed there left a secret nobody used, which an
  // operator backing up "the file media-secret" would keep instead of the one in use.
  await existingMediaSecret(config.dataDir, config.media.secret);
  const mediaDir = path.join(config.dataDir, 'media');
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, applicationName: options.takesRequests ? 'loupe server' : options.longRunning ? 'loupe worker' : 'loupe cli', poolSize: config.pgPoolSize, stalledStatementMs: options.longRunning ? config.pgStatementLimitMs : 0, warn: (message, fields) => options.log?.('warn', message, fields), info: (message, fields) => options.log?.('info', message, fields), backgroundCheckpoints: options.longRunning ?? false, upgrade: options.upgrade ?? options.longRunning ?? false, create: options.create ?? true });
  // The CLI on PostgreSQL neither makes a data folder nor a signing secret it would never use: run from another folder,
  // every command left ./data/media and a new media-secret there, which an operator could back up as the real one (h207)
  const cliOnPostgres = !options.longRunning && config.databaseUrl !== undefined;
  let made: { secret: Buffer; file?: string };
  try {
    made = cliOnPostgres ? ((await existingMediaSecret(config.dataDir, config.media.secret)) ?? { secret: randomBytes(32) }) : await loadMediaSecret(config.dataDir, config.media.secret);
  } catch (err) {
    await store.close();
    throw err;
  }
  const { secret, file: secretFile } = made;
  if (secretFile && config.databaseUrl && options.longRunning) {
    // info: one node with its folder is the usual first setup, and a warning at every start read as something wrong (h260)
    options.log?.('info', 'LOUPE_MEDIA_SECRET is not set: media links are signed with the secret in the data folder; API nodes and workers that do not share this folder must all be given the same LOUPE_MEDIA_SECRET', { file: secretFile });
  }
  if (options.longRunning) {
    // A server that cannot write would say it is ready, then fail every write and log its queue's failures twice a second
    try {
      await assertWritable(store, mediaDir);
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  const mediaStore = new MediaStore(mediaDir, { create: !cliOnPostgres });
  const links = new MediaLinks(secret, { privateS: config.media.linkLifetimeS, publicS: config.media.publicLinkLifetimeS });
  const policy = new AddressPolicy(config.urlAllowList);
  const intake = new ImageIntake({
    policy,
    fetch: config.fetch,
    fileRoot: config.fileRoot,
    maxBytes: config.limits.imageBytes,
    maxPixels: config.limits.imagePixels,
    ownMedia: { links, store: mediaStore },
  });
  const visionEngine = new VisionEngine({ ...config.vision, clipPack: config.vision.clipPack ?? pack?.dir });
  const accountStore = new AccountStore(store);
  const accounts = new AccountService(accountStore);
  const collectionStore = new CollectionStore(store);
  const queries = store.dialect === 'postgres' ? new PgCollectionQueries(store) : new EmbeddedCollectionQueries(collectionStore, path.join(config.dataDir, 'indexes'), options.log, options.indexLoad);
  const vision = new VisionService(intake, visionEngine);
  const catalogStore = new CatalogStore(store);
  const imageMatching = new ImageMatchingService(intake);
  const requestStore = new RequestStore(store);
  // Only long-running processes listen for other processes' queue notices.
  const signal = await QueueSignal.open(store, { listen: options.longRunning ?? false, onError: (err) => options.log?.('warn', 'queue notices: connection lost; jobs and webhooks are found by polling until it is back', { err: String(err) }), onBack: (attempts) => options.log?.('info', 'queue notices: listening again', { attempts }) });
  const flows = new FlowService(requestStore);
  const registry = new HandlerRegistry();
  registry.register(new UpscalerJob(vision));
  registry.register(new FlowsJob(flows, vision, imageMatching));
  registry.register(new CardGraderJob(vision));
  const priceStore = new PriceStore(store);
  const catalogImages = new CatalogImageStore(store);
  const recognition = new RecognitionService(intake, vision, catalogStore, priceStore, accounts, new ArtworkReferences(catalogImages), config.priceRates);
  registry.register(new CollectiblesJob(recognition));
  const results = new ResultLinks(links, registry, config.publicUrl);
  // one rule 4 check (and its per-collection count) for visual and text search
  const products = new ProductRule(filterFailuresAre400(queries));
  const mediaDeletions = new MediaDeletionStore(store.db);
  const schema = new SchemaWatch(store, config.schemaCheckMs);
  const outdatedRelease = async () => {
    const newer = await schema.outdated();
    return newer.length ? SchemaWatch.message(newer) : undefined;
  };
  const backfill = new SeenBackfill(collectionStore, vision, config.seen, options.log, outdatedRelease);
  const queue = new QueueWorkers({ requests: requestStore, registry, signal, intake, media: mediaStore, policy, present: (row) => results.response(row), background: [backfill], mediaDeletions, creditHolds: accountStore, stagedImports: { removeAbandoned: () => removeAbandonedStaging(store.db, undefined, Date.now(), sweptStagingAfterMs) }, unfoldedSessions: { refold: () => refoldSessionSearch(store.db, store.dialect, { unfoldedOnly: true }) }, claimBlocked: outdatedRelease }, { queue: config.queue, webhooks: config.webhooks, ...(options.log ? { log: options.log } : {}), ...(options.takesRequests ? { shortensRetention: true } : {}) });
  const lockWatch = new LockBudgetWatch((coming) => readLockBudget(store, coming), options.log);
  // a server's and a worker's pools share the lock table; a CLI command's reads it only when asked (collection list)
  if (options.longRunning) await lockWatch.check();
  const collections = new CollectionService(collectionStore, accounts, queries, mediaStore, lockWatch);
  const cardSessions = new CardSessionService(CardSessionStore.of(store), mediaStore, config.limits, links);
  const erasure = new AccountErasure({ accounts, accountStore, collections, cardSessions, requests: requestStore, media: mediaStore, mediaDeletions, store, dataDir: config.dataDir });
  const housekeeping = new MediaHousekeeping({ store, requests: requestStore, media: mediaStore, deletions: mediaDeletions });
  const requests = new RequestService(requestStore, registry, signal, policy, {
    retentionMs: config.queue.retentionMs,
    maxImageBytes: config.limits.imageBytes,
    priceOf: (type) => config.prices[`requests.${type}`] ?? 0,
    resendGapMs: config.webhooks.resendGapMs,
  }, results);
  // One check a second answers every probe in it: /ready takes no token, and each check writes a
  // database row and 64 KiB to the media folder (a helper's 1,100 probes a second slowed writes, h80).
  let lastCheck: { at: number; done: Promise<void> } | undefined;
  let damagedSince: string | undefined;
  const check = async () => {
    if (damagedSince) throw new ServiceError(503, 'not_ready', `Not ready: the database file is damaged (SQLite said so at ${damagedSince}): stop the server and restore a backup (docs/operations.md "Backups").`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NotWritable('database', 'the database did not answer within 3 s')), 3000);
    });
    try {
      await Promise.race([assertWritable(store, mediaDir), late]);
      // a node a newer release's upgrade left behind leaves the load balancer (it wrote rows as the old release makes them)
      const outdated = await outdatedRelease();
      if (outdated) throw new ServiceError(503, 'not_ready', `Not ready: ${outdated}.`);
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      // which part, without the paths and codes (the server log has them, from `cause`)
      const what = err instanceof NotWritable && err.part === 'media' ? 'the media folder cannot be written' : 'the database cannot be reached or written';
      throw Object.assign(new ServiceError(503, 'not_ready', `Not ready: ${what} (the server log says why).`), { cause: err });
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    store,
    outdatedRelease,
    databaseDamaged: () => {
      if (damagedSince) return;
      damagedSince = new Date().toISOString();
      lastCheck = undefined;
    },
    ready: () => {
      const now = Date.now();
      if (!lastCheck || now - lastCheck.at >= readyCheckMs) lastCheck = { at: now, done: check() };
      return lastCheck.done;
    },
    accounts,
    erasure,
    collections,
    visualSearch: new VisualSearchService(collectionStore, queries, vision, config.seen, accounts, products, new RecordThumbnails(mediaStore, links, collectionStore, config.recordThumbnails ? config.limits.thumbnailLongEdge : 0)),
    textSearch: new TextSearchService(collectionStore, queries, vision, products),
    seenBackfill: backfill,
    cardSessions,
    imageMatching,
    media: new MediaService(mediaStore, links),
    deleteRequest: (id: string) => housekeeping.deleteRequest(id),
    requestDeletion: (id: string) => housekeeping.requestDeletion(id),
    leftOverWork: () => leftOverWork(store),
    mediaAudit: (options?: { decode?: boolean }) => housekeeping.audit(options),
    vision,
    rateLimiter: new RateLimiter(config.rateLimit.perSecond, config.rateLimit.burst),
    requests,
    flows,
    catalogs: new CatalogService(catalogStore, priceStore, { store: catalogImages, vision }),
    recognition,
    registry,
    queue,
    close: async () => {
      await queue.stop();
      await signal.close();
      await queries.close();
      await visionEngine.close();
      await store.close();
    },
  };
}
