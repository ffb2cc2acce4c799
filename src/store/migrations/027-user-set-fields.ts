import type { Migration } from './index.ts';

/**
 * The row fields a user set by PATCH (`grading`, `sold`, `note`, space-separated): an app's later upload no longer
 * changes them, as it never changed a corrected price. A phone's grading or its stale `sold: false` undid the host's
 * correction, and the grade could not be set back (h93).
 */
export const userSetFields: Migration = {
  name: '027-user-set-fields',
  sqlite: [`ALTER TABLE card_identifications ADD COLUMN user_set TEXT`],
  postgres: [`ALTER TABLE card_identifications ADD COLUMN user_set text`],
};
