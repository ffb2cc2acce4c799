import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { visualHashes } from '../models/visual-hash.ts';

/**
 * What identification compares of a card's artwork (docs/recognition.md "Artwork"): the bmh1
 * visual hash (docs/visual-hashes.md) of the art box of the upright card. The art box is where
 * Pokémon, MTG and Yu-Gi-Oh! cards print their illustration, about the same share of the card
 * in all three; the name bar and the text box are left out, since the same frame and layout
 * repeat on every card of a set and would make two cards' hashes alike.
 *
 * On 22 generated photos of the 229 reference scans (bench `recognition`), the nearest
 * reference by this hash was the right card 20 times; by the whole card's hash 20, by phash of
 * the art box 19, by a MobileNetV2 embedding of the art box 21 — at 48 ms a card for the
 * embedding against under 2 ms for the hash, so the hash is what a read computes.
 */
export const ART_BOX = { x0: 0.1, y0: 0.12, x1: 0.9, y1: 0.5 } as const;

/**
 * The method's version, stored with each reference's hash: change it whenever the hash of a card
 * would change (the box, the hash, the warp), so references made before are not compared.
 */
export const ARTWORK_VERSION = 'art-bmh1-1';

/** Bits in an artwork hash. */
export const ART_BITS = 256;

/** The art box of an upright card image; `turned`: of the card turned over, without turning the whole card. */
export function artBox(up: RgbPixels, turned = false): RgbPixels {
  // the box's pixels as the turned card would have them, mirrored back: bit for bit the same hash
  const [ta, tb, tc, td] = [ART_BOX.x0 * up.width, ART_BOX.x1 * up.width, ART_BOX.y0 * up.height, ART_BOX.y1 * up.height].map(Math.round) as [number, number, number, number];
  const [a, b, c, d] = turned ? [up.width - tb, up.width - ta, up.height - td, up.height - tc] : [ta, tb, tc, td];
  const w = b - a;
  const h = d - c;
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) out.set(up.data.subarray(((c + y) * up.width + a) * 3, ((c + y) * up.width + b) * 3), y * w * 3);
  const box = { data: out, width: w, height: h };
  return turned ? turnedOver(box) : box;
}

/** The artwork hash of an upright card (`turned`: of the card turned over): bmh1 of its art box, 256 bits as 64 hex digits. */
export function artworkHash(up: RgbPixels, turned = false): string {
  const art = artBox(up, turned);
  const bits = visualHashes(art.data, art.width, art.height, 3, ['bmh1']).bmh1!;
  let hex = '';
  for (let i = 0; i < bits.length; i += 4) hex += parseInt(bits.slice(i, i + 4), 2).toString(16);
  return hex;
}

/** The same card turned over (180°): what a card read the other way up shows. */
export function turnedOver(img: RgbPixels): RgbPixels {
  const n = img.width * img.height;
  const data = new Uint8Array(img.data.length);
  for (let i = 0; i < n; i++) {
    const j = (n - 1 - i) * 3;
    data[j] = img.data[i * 3]!;
    data[j + 1] = img.data[i * 3 + 1]!;
    data[j + 2] = img.data[i * 3 + 2]!;
  }
  return { data, width: img.width, height: img.height };
}

/** An artwork hash as 32-bit words, for fast comparison against many references. */
export function hashWords(hex: string): Uint32Array {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not an artwork hash: ${hex.slice(0, 80)}`);
  const out = new Uint32Array(8);
  for (let i = 0; i < 8; i++) out[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16) >>> 0;
  return out;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Differing bits of two artwork hashes (0–256). */
export function artDistance(a: Uint32Array, b: Uint32Array, bOffset = 0): number {
  let d = 0;
  for (let i = 0; i < 8; i++) d += popcount((a[i]! ^ b[bOffset + i]!) >>> 0);
  return d;
}
