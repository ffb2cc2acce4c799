import type { Migration } from './index.ts';

/**
 * What a row's uploads sent of the fields a re-send may change, one short hash per distinct send
 * (space-separated, the latest last): a client's queue that retries an earlier batch after the row
 * was graded again, marked sold or given a note undid those changes with its stale values.
 */
export const identificationSends: Migration = {
  name: '022-identification-sends',
  sqlite: [`ALTER TABLE card_identifications ADD COLUMN sent_hashes TEXT`],
  postgres: [`ALTER TABLE card_identifications ADD COLUMN sent_hashes text`],
};
