import type { Transaction } from 'kysely';
import type { Database, DialectName } from '../database.ts';
import { initial } from './001-initial.ts';
import { collections } from './002-collections.ts';
import { requests } from './003-requests.ts';
import { cardSessionValues } from './004-card-session-values.ts';
import { catalogs } from './005-catalogs.ts';
import { prices } from './006-prices.ts';
import { catalogImages } from './007-catalog-images.ts';
import { catalogLookupOrder } from './008-catalog-lookup-order.ts';
import { collectionText } from './009-collection-text.ts';
import { requestIdempotency } from './010-request-idempotency.ts';
import { sessionIdempotency } from './013-session-idempotency.ts';
import { recordHashes } from './014-record-hashes.ts';
import { wordsConfigs } from './015-words-configs.ts';
import { mediaDeletions } from './016-media-deletions.ts';
import { creditHolds } from './017-credit-holds.ts';
import { jsonAsSent } from './018-json-as-sent.ts';
import { hashBands } from './019-hash-bands.ts';
import { sessionSummaryIndex } from './020-session-summary-index.ts';
import { cardKeyNumbers } from './021-card-key-numbers.ts';
import { identificationSends } from './022-identification-sends.ts';
import { zeroPrices } from './023-zero-prices.ts';
import { cardKeyWidths } from './024-card-key-widths.ts';
import { gameCaseFolding } from './025-game-case-folding.ts';
import { imageSends } from './026-image-sends.ts';
import { userSetFields } from './027-user-set-fields.ts';
import { cardKeyScripts } from './028-card-key-scripts.ts';
import { priceDeletions } from './029-price-deletions.ts';
import { cardKeyInvisibles } from './030-card-key-invisibles.ts';
import { priceDeletionContents } from './031-price-deletion-contents.ts';
import { kanaVoicedNames } from './032-kana-voiced-names.ts';
import { priceDeletionPrices } from './033-price-deletion-prices.ts';
import { flowKeyOrder } from './034-flow-key-order.ts';
import { catalogLatinStrokes } from './035-catalog-latin-strokes.ts';
import { moreWordsConfigs } from './036-more-words-configs.ts';
import { cardKeyLateCards } from './037-card-key-late-cards.ts';
import { sessionSearchText } from './038-session-search-text.ts';
import { sessionSearchIndex } from './039-session-search-index.ts';
import { webhookClaimIndexes } from './040-webhook-claim-indexes.ts';
import { sessionTotalsExact } from './041-session-totals-exact.ts';
import { gameKindNames } from './042-game-kind-names.ts';
import { requestInputParts } from './043-request-input-parts.ts';
import { requestUploadStaging } from './044-request-upload-staging.ts';
import { recordDataIndex } from './045-record-data-index.ts';
import { collectionTextLangs } from './046-collection-text-langs.ts';
import { recordThumbnails } from './047-record-thumbnails.ts';
import { collectionRecordsByKey } from './048-collection-records-by-key.ts';
import { requestPreviews } from './049-request-previews.ts';
import { catalogImportStaging } from './011-catalog-import-staging.ts';
import { requestTurns } from './012-request-turns.ts';

export interface Migration {
  name: string;
  sqlite: string[];
  postgres: string[];
  /** Work no statement can do (a value made by the server's own code), after the statements, in the same transaction. */
  run?: (trx: Transaction<Database>, dialect: DialectName) => Promise<void>;
}

/** In order. Never edit a released migration; add a new one. */
export const migrations: Migration[] = [initial, collections, requests, cardSessionValues, catalogs, prices, catalogImages, catalogLookupOrder, collectionText, requestIdempotency, catalogImportStaging, requestTurns, sessionIdempotency, recordHashes, wordsConfigs, mediaDeletions, creditHolds, jsonAsSent, hashBands, sessionSummaryIndex, cardKeyNumbers, identificationSends, zeroPrices, cardKeyWidths, gameCaseFolding, imageSends, userSetFields, cardKeyScripts, priceDeletions, cardKeyInvisibles, priceDeletionContents, kanaVoicedNames, priceDeletionPrices, flowKeyOrder, catalogLatinStrokes, moreWordsConfigs, cardKeyLateCards, sessionSearchText, sessionSearchIndex, webhookClaimIndexes, sessionTotalsExact, gameKindNames, requestInputParts, requestUploadStaging, recordDataIndex, collectionTextLangs, recordThumbnails, collectionRecordsByKey, requestPreviews];
