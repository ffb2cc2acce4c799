import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { photoBytes } from '../../../test/helpers/photos.ts';
import { cardPhotoEdge, decodeCardPhoto } from './card-tasks.ts';

/**
 * One photo is measured at one size whatever its file: a phone's JPEG carries an ICC profile or an
 * EXIF rotation, which the fast JPEG path leaves to sharp, and the same pixels were measured at
 * 2000 px one way and 2400 px the other (a helper's Ho-Oh graded 7.9 and 4.3).
 */
describe('decodeCardPhoto', () => {
  it('gives a 12-MP photo the same size as a plain JPEG, with an ICC profile, an EXIF rotation, or as PNG', async () => {
    const name = 'single-1730716218_jpg.rf.61c0c396008ef0622faa73ed585c18fd.jpg';
    const upright = await sharp(photoBytes(`cards/${name}`)).resize(3000, 4000, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: 3000, height: 4000, channels: upright.info.channels } } as const;
    const plain = await sharp(upright.data, raw).jpeg({ quality: 92 }).toBuffer();
    const withProfile = await sharp(upright.data, raw).jpeg({ quality: 92 }).withIccProfile('srgb').toBuffer();
    // stored turned a quarter clockwise, with the tag that turns it back (6: rotate 90° clockwise to view)
    const turned = await sharp(await sharp(upright.data, raw).rotate(-90).jpeg({ quality: 92 }).toBuffer()).withMetadata({ orientation: 6 }).toBuffer();
    const png = await sharp(upright.data, raw).png({ compressionLevel: 1 }).toBuffer();
    const decoded = await Promise.all([plain, withProfile, turned, png].map((b) => decodeCardPhoto(b, 100e6)));
    expect(decoded.map((d) => [d.width, d.height])).toEqual(Array(4).fill([1500, 2000]));
    expect(decoded.map((d) => [d.originalWidth, d.originalHeight])).toEqual(Array(4).fill([3000, 4000]));
    // and the same picture: mean difference per channel well under a grey level's few steps
    for (const other of decoded.slice(1)) {
      let diff = 0;
      for (let i = 0; i < other.data.length; i++) diff += Math.abs(other.data[i]! - decoded[0]!.data[i]!);
      expect(diff / other.data.length).toBeLessThan(3);
    }
  }, 60_000);

  it('measures a photo at the size JPEG scaling gives it, or 2400 px where that would be larger', () => {
    expect([800, 1600, 2400, 3000, 3199, 3200, 4000, 4032, 6000, 8160].map(cardPhotoEdge)).toEqual([800, 1600, 2400, 2400, 2400, 1600, 2000, 2016, 2400, 2040]);
  });
});
