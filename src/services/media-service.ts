import type { MediaStore } from '../media/media-store.ts';
import { MediaStore as Media } from '../media/media-store.ts';
import { notFound } from './errors.ts';

/** Serves stored images by key; the key itself is the credential (128 random bits). */
export class MediaService {
  constructor(private readonly media: MediaStore) {}

  async open(key: string) {
    const file = Media.isKey(key) ? await this.media.open(key) : undefined;
    if (!file) throw notFound('Image');
    return file;
  }
}
