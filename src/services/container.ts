import path from 'node:path';
import type { Config } from '../config/config.ts';
import { AddressPolicy } from '../media/address-policy.ts';
import { ImageIntake } from '../media/image-intake.ts';
import { MediaStore } from '../media/media-store.ts';
import { AccountStore } from '../store/account-store.ts';
import { CardSessionStore } from '../store/card-session-store.ts';
import { openStore, type Store } from '../store/database.ts';
import { AccountService } from './account-service.ts';
import { CollectionService } from './collection-service.ts';
import { CollectionStore } from '../store/collection-store.ts';
import { PgCollectionQueries } from '../index/pg-collection-queries.ts';
import { EmbeddedCollectionQueries } from '../index/embedded-collection-queries.ts';
import { VisualSearchService } from './visual-search-service.ts';
import { CardSessionService } from './card-session-service.ts';
import { ImageMatchingService } from './image-matching-service.ts';
import { MediaService } from './media-service.ts';
import { RateLimiter } from './rate-limiter.ts';
import { VisionService } from './vision-service.ts';
import { VisionEngine } from '../vision/vision-engine.ts';
import { activePack } from '../vision/clip/clip-pack.ts';

export interface Services {
  store: Store;
  accounts: AccountService;
  collections: CollectionService;
  visualSearch: VisualSearchService;
  cardSessions: CardSessionService;
  imageMatching: ImageMatchingService;
  media: MediaService;
  vision: VisionService;
  rateLimiter: RateLimiter;
  close(): Promise<void>;
}

/** Wires adapters into services. The server and the admin CLI share this, so both see one set of rules. */
export async function openServices(config: Config, options: { longRunning?: boolean } = {}): Promise<Services> {
  // The CLI opens services for account work: a broken pack must not stop it, only the server.
  const pack = await activePack(config.dataDir).catch((err: unknown) => {
    if (options.longRunning) throw err;
    return undefined;
  });
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: config.pgPoolSize, backgroundCheckpoints: options.longRunning ?? false });
  const mediaStore = new MediaStore(path.join(config.dataDir, 'media'));
  const intake = new ImageIntake({
    policy: new AddressPolicy(config.urlAllowList),
    fetch: config.fetch,
    fileRoot: config.fileRoot,
    maxBytes: config.limits.imageBytes,
    maxPixels: config.limits.imagePixels,
  });
  const visionEngine = new VisionEngine({ ...config.vision, clipPack: config.vision.clipPack ?? pack?.dir });
  const accounts = new AccountService(new AccountStore(store));
  const collectionStore = new CollectionStore(store);
  const queries = store.dialect === 'postgres' ? new PgCollectionQueries(store) : new EmbeddedCollectionQueries(collectionStore, path.join(config.dataDir, 'indexes'));
  const vision = new VisionService(intake, visionEngine);
  return {
    store,
    accounts,
    collections: new CollectionService(collectionStore, accounts, queries),
    visualSearch: new VisualSearchService(collectionStore, queries, vision),
    cardSessions: new CardSessionService(CardSessionStore.of(store), mediaStore, config.limits),
    imageMatching: new ImageMatchingService(intake),
    media: new MediaService(mediaStore),
    vision,
    rateLimiter: new RateLimiter(config.rateLimit.perSecond, config.rateLimit.burst),
    close: async () => {
      await queries.close();
      await visionEngine.close();
      await store.close();
    },
  };
}
