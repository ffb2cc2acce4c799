import { ImageLoadError } from './image-load-error.ts';

/**
 * Scans a JPEG may hold. libjpeg decodes a progressive JPEG scan by scan, each a pass over the whole
 * coefficient buffer, so a small file of hundreds of empty scans (each a few bytes of end-of-band runs)
 * costs seconds to minutes of decoding within the pixel limit: 67 KB of 4096 × 4096 and 883 scans took
 * 7 s (h150; libjpeg-turbo's LJT-01-003). Cameras and encoders write one scan (baseline) or about ten
 * (progressive; libjpeg's default script has 10 for colour, mozjpeg's about as many).
 */
export const maxJpegScans = 100;

/**
 * Start-of-scan markers of a JPEG's bytes, counted up to `stopAfter`; 0 when the bytes are no JPEG.
 * Entropy-coded data is stepped over by its markers (a 0xFF followed by 0x00 or a restart marker
 * belongs to the data), as a decoder does.
 */
export function jpegScanCount(bytes: Uint8Array, stopAfter = Infinity): number {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return 0;
  let scans = 0;
  let p = 2;
  while (p + 1 < bytes.length && scans < stopAfter) {
    if (bytes[p] !== 0xff) {
      // not at a marker: step to the next 0xFF, as libjpeg skips stray bytes
      p = bytes.indexOf(0xff, p);
      if (p < 0) break;
      continue;
    }
    const marker = bytes[p + 1]!;
    if (marker === 0xff || marker === 0x00 || marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      p += marker === 0xff ? 1 : 2;
      continue;
    }
    if (marker === 0xd9) break;
    if (p + 4 > bytes.length) break;
    const length = (bytes[p + 2]! << 8) | bytes[p + 3]!;
    p += 2 + length;
    if (marker !== 0xda) continue;
    scans += 1;
    // the scan's data runs to the next marker that is neither a stuffed 0xFF00 nor a restart
    for (p = bytes.indexOf(0xff, p); p >= 0 && p + 1 < bytes.length; p = bytes.indexOf(0xff, p)) {
      const next = bytes[p + 1]!;
      if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) break;
      p += next === 0xff ? 1 : 2;
    }
    if (p < 0) break;
  }
  return scans;
}

/** Refuses a JPEG of more scans than `maxJpegScans` before it is decoded. */
export function refuseScanBomb(bytes: Uint8Array): void {
  const scans = jpegScanCount(bytes, maxJpegScans + 1);
  if (scans > maxJpegScans) {
    throw new ImageLoadError(`the JPEG has more than ${maxJpegScans} scans (cameras and encoders write 1 to about 10): send it saved again as a baseline JPEG`, 400, 'invalid_image');
  }
}
