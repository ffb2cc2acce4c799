/**
 * Whether bytes open as one of the formats some image endpoint takes (JPEG, PNG, GIF, TIFF, WebP, or HEIF: HEIC and
 * AVIF), by the same first bytes libvips's own loaders look for. Anything else never reaches libvips: asked only to
 * describe an SVG so as to refuse it, libvips parses the whole document with librsvg, and a 40 KB gzipped SVG of
 * 600,000 shapes took 4 s and 1.1 GB; ten such records in one free (all failed) call held the server 77 s at 10 GB.
 * The format libvips then reports is still checked against each caller's own list.
 */
export function hasImageSignature(b: Buffer): boolean {
  const at = (offset: number, text: string) => b.length >= offset + text.length && b.subarray(offset, offset + text.length).toString('latin1') === text;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return true;
  if (at(0, '\x89PNG\r\n\x1a\n')) return true;
  if (at(0, 'GIF87a') || at(0, 'GIF89a')) return true;
  // classic and BigTIFF, either byte order
  if (at(0, 'II*\0') || at(0, 'MM\0*') || at(0, 'II+\0') || at(0, 'MM\0+')) return true;
  if (at(0, 'RIFF') && at(8, 'WEBP')) return true;
  // ISO base media (HEIC, AVIF): libheif judges the brand
  return at(4, 'ftyp');
}
