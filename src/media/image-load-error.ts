/** A record's image could not be used; `reason` completes "Error Loading Image: …". */
export class ImageLoadError extends Error {
  constructor(readonly reason: string) {
    super(`Error Loading Image: ${reason}`);
    this.name = 'ImageLoadError';
  }
}
