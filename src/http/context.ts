import type { FieldError } from '../services/errors.ts';
import type { TextSearchService } from '../services/text-search/text-search-service.ts';
import type { Config } from '../config/config.ts';
import type { AccountService, Principal, ServiceName } from '../services/account-service.ts';
import type { CardSessionService } from '../services/card-session-service.ts';
import type { CollectionService } from '../services/collection-service.ts';
import type { VisualSearchService } from '../services/visual-search/visual-search-service.ts';
import type { ImageMatchingService } from '../services/image-matching-service.ts';
import type { InFlight } from './in-flight.ts';
import type { CallHold } from '../util/credit-hold-scope.ts';
import type { MediaService } from '../services/media-service.ts';
import type { RateLimiter } from '../services/rate-limiter.ts';
import type { VisionService } from '../services/vision-service.ts';
import type { RequestService } from '../services/request-service.ts';
import type { RecognitionService } from '../services/recognition/recognition-service.ts';
import type { Services } from '../services/container.ts';

/** What routes may reach: configuration and services, never a store or a file. */
export interface AppContext {
  config: Config;
  /** What a process stopped without a clean shutdown left (said at a start). */
  leftOverWork: Services['leftOverWork'];
  /** Starts the queue's workers, webhook deliveries and sweeps: the server process, once its port is open (buildApp's `startQueue`); not for routes. */
  startQueue: () => void;
  /** The database said its file is damaged (the error handler's): `/ready` fails from then on; not for routes. */
  databaseDamaged: () => void;
  accounts: AccountService;
  collections: CollectionService;
  visualSearch: VisualSearchService;
  textSearch: TextSearchService;
  cardSessions: CardSessionService;
  imageMatching: ImageMatchingService;
  media: MediaService;
  rateLimiter: RateLimiter;
  vision: VisionService;
  requests: RequestService;
  recognition: RecognitionService;
  inFlight: InFlight;
}

declare module 'fastify' {
  interface FastifyInstance {
    loupe: AppContext;
  }
  interface FastifyRequest {
    principal?: Principal;
    workspaceId?: string;
    charged?: { accountId: string; price: number };
    /** The call's price, for the service to charge with what its records add (route config `chargedInService`). */
    serviceCharge?: { accountId: string; price: number; priceKey: string };
    /** A charge the handler makes itself (route config `chargeInHandlerWithIdempotencyKey`). */
    deferredCharge?: { accountId: string; price: number; priceKey: string };
    /** Where this call's charges are held until it answers (src/util/credit-hold-scope.ts). */
    creditHold?: CallHold;
  }
  interface FastifyContextConfig {
    /** The account must have this service enabled; the route is authenticated. */
    service?: ServiceName;
    /**
     * The call keeps nothing (its answer is all it makes): when its client hangs up before the answer,
     * the call is not charged, so a phone's retry after a dropped connection pays once (h81).
     */
    storesNothing?: boolean;
    /** Key into the price table; charged after validation, refunded when the call fails. */
    price?: string;
    /**
     * The service charges `price` itself (`request.serviceCharge`), with what the records it takes add, in one debit
     * once it knows them (a fashion insert's extract_colors / extract_tags): charged first and the extras after,
     * parallel calls on PostgreSQL each took the price and all failed on their extras (h92); charged up front from the
     * body, a retried batch paid for records already stored (h101).
     */
    chargedInService?: boolean;
    /**
     * With an `Idempotency-Key`, the handler charges (`request.deferredCharge`) in the transaction that
     * makes what is paid for, so a retry that replays is never charged, nor refused for credits another
     * retry is paying with.
     */
    chargeInHandlerWithIdempotencyKey?: boolean;
    /**
     * A search-style route (spec 2; recognition of spec 3 too): error bodies also carry the
     * envelope's `status`, and the route's own answer goes out with the HTTP status of its
     * `status.code` (src/http/envelope-status.ts).
     */
    envelope?: boolean;
    /**
     * With `envelope`: a `status.code` 300 (`MIXED_RESULT`, some records failed) goes out as HTTP 200, since spec 3
     * §7 counts any 2xx as success and anything else as failure (recognition: the records answered are charged).
     */
    mixedIsSuccess?: boolean;
    /**
     * Error bodies also carry `status: {code, text, request_id}` (spec 3 §7: "Body `status` has `code`
     * and `text`"), the route's own answers untouched: the asynchronous API, whose answers' `status` is
     * the request's state.
     */
    statusInErrors?: boolean;
    /**
     * A `workspace` in the body names the call's workspace as `?workspace=` does (the spec's request resource has the
     * field, so a client written from it sends it there: h257, it was ignored and the request went to the default one).
     */
    workspaceInBody?: boolean;
    /**
     * What the path alone can refuse (an unknown session), checked before a client that asked (`Expect: 100-continue`)
     * is told to send its body: a phone learnt of a deleted session after uploading 7 MB (h241).
     */
    beforeBody?: (request: FastifyRequest) => Promise<void>;
    /**
     * Batches of many rows (megabytes of JSON): bodies over the large-body size take turns and
     * are parsed on a thread of their own (src/http/large-bodies.ts, json-parser.ts).
     */
    batchBody?: boolean;
    /**
     * A batch's rule problems in the rows its schema let through (`schemaFailed`: the rows it did not), added
     * to a schema failure's `errors` so one answer names every bad row (src/http/errors.ts).
     */
    rowErrors?: (body: unknown, schemaFailed: ReadonlySet<number>) => Promise<FieldError[]>;
  }
}
