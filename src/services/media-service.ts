import type { MediaLinks } from '../media/media-links.ts';
import type { MediaStore } from '../media/media-store.ts';
import { MediaStore as Media } from '../media/media-store.ts';
import { notFound } from './errors.ts';

/**
 * What a record's image that could not be loaded fails with, for the HTTP layer's download stops (the client gone,
 * the request's download budget spent): routes and hooks reach media/ only through services (docs/architecture.md, Layers).
 */
export { ImageLoadError } from '../media/image-load-error.ts';

/**
 * Serves stored images to whoever holds a signed, unexpired link (media-links.ts); no API token.
 * A bare key, a bad signature and an expired link get the same 404 as an unknown key, so an
 * answer never tells which part was wrong.
 */
export class MediaService {
  constructor(
    private readonly media: MediaStore,
    private readonly links: MediaLinks,
  ) {}

  async open(key: string, expires: unknown, sig: unknown) {
    const secondsLeft = Media.isKey(key) ? this.links.secondsLeft(key, expires, sig) : undefined;
    const file = secondsLeft !== undefined ? await this.media.open(key) : undefined;
    if (!file) throw notFound('Image');
    return { ...file, secondsLeft: secondsLeft! };
  }
}
