import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareCardImage } from './card-image.ts';

const limits = { imagePixels: 64_500_000, imageLongEdge: 1024, thumbnailLongEdge: 256 };

describe('prepareCardImage', () => {
  it('refuses an animated WebP, naming its frames, and keeps a still one (h118: stored with its frames, read by its first)', async () => {
    // three 40x60 frames stacked: sharp writes them as an animation of pageHeight 60
    const frames = Buffer.alloc(40 * 180 * 3, 0);
    for (let i = 0; i < frames.length; i += 3) frames[i] = Math.floor(i / (40 * 60 * 3)) * 100;
    const animated = await sharp(frames, { raw: { width: 40, height: 180, channels: 3, pageHeight: 60 } }).webp({ loop: 0 }).toBuffer();
    expect((await sharp(animated).metadata()).pages).toBe(3);
    await expect(prepareCardImage(animated, limits)).rejects.toThrow('the image is animated (3 frames); send one frame as a still image');
    const still = await sharp(frames.subarray(0, 40 * 60 * 3), { raw: { width: 40, height: 60, channels: 3 } }).webp().toBuffer();
    expect((await prepareCardImage(still, limits)).originalExt).toBe('webp');
  });
});
