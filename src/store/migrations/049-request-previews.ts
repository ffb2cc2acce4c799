import type { Migration } from './index.ts';

/**
 * A finished asynchronous request's previews: a JPEG of long edge 512 px of each input image the vision worker decoded,
 * `[{index, key, width, height}]` (null: none made; before this migration, for types that make none, or with
 * `LOUPE_REQUEST_PREVIEWS` off). The console's request view drew a photo sent as `_base64` nowhere once the request was
 * done, its inputs being dropped (h365). The keys are in `media` too, so a request's deletion, `loupe media check` and
 * backups handle them as its other result files.
 */
export const requestPreviews: Migration = {
  name: '049-request-previews',
  sqlite: [`ALTER TABLE async_requests ADD COLUMN previews TEXT`],
  postgres: [`ALTER TABLE async_requests ADD COLUMN IF NOT EXISTS previews jsonb`],
};
