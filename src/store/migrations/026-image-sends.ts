import type { Migration } from './index.ts';

/**
 * A short hash of each image a row was sent (space-separated, the latest last): an app's late retry of an older
 * upload, arriving after a newer image, replaced the newer one (h81); it is now answered as the retry it is.
 */
export const imageSends: Migration = {
  name: '026-image-sends',
  sqlite: [`ALTER TABLE card_identifications ADD COLUMN image_sends TEXT`],
  postgres: [`ALTER TABLE card_identifications ADD COLUMN image_sends text`],
};
