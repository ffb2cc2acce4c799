import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { caltechPhotos, photosDir } from '../../../test/helpers/photos.ts';
import { CARD_VERIFIER_FILE, CardVerifier, cardView, portrait, VIEW_H, VIEW_W } from './card-verifier.ts';
import type { Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

async function pixels(file: string): Promise<RgbPixels> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** The outline scaled about its centre: 0.6 is about the art box, 1.3 takes in the table. */
function scaled(q: Quad, s: number): Quad {
  const cx = q.reduce((a, p) => a + p[0], 0) / 4;
  const cy = q.reduce((a, p) => a + p[1], 0) / 4;
  return q.map(([x, y]) => [cx + (x - cx) * s, cy + (y - cy) * s]) as Quad;
}

describe('card views', () => {
  it('turns a landscape outline to portrait, keeping its corners in order', () => {
    const land: Quad = [[0, 0], [88, 0], [88, 63], [0, 63]];
    expect(portrait(land)).toEqual([[88, 0], [88, 63], [0, 63], [0, 0]]);
    const port: Quad = [[0, 0], [63, 0], [63, 88], [0, 88]];
    expect(portrait(port)).toBe(port);
  });

  it('match training/card-detector/train_verifier.py on a real photo (so the network sees what it learnt on)', async () => {
    const ref = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/card-detector/view-parity.json'), 'utf8')) as { file: string; quad: Quad; points: [number, number][]; rgb: number[][] };
    const view = cardView(await pixels(path.join(photosDir, ref.file.replace(/^photos\//, ''))), ref.quad);
    const plane = VIEW_W * VIEW_H;
    let worst = 0;
    ref.rgb.forEach((rgb, n) => {
      const [i, j] = ref.points[n]!;
      rgb.forEach((v, c) => (worst = Math.max(worst, Math.abs(view[c * plane + j * VIEW_W + i]! - v))));
    });
    // OpenCV's remap works in 1/32-pixel steps and the two JPEG decoders may differ by a level
    expect(worst).toBeLessThan(0.02);
  });
});

interface Labelled {
  file: string;
  cards: { corners: Quad; kind: string }[];
}

describe.runIf(fs.existsSync(CARD_VERIFIER_FILE))('card verifier on real photos', () => {
  const labels = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/card-detector/real-corners.json'), 'utf8')) as { photos: Labelled[] }).photos;
  const cardsDir = path.join(photosDir, 'cards');
  const committed = fs.readdirSync(cardsDir).filter((f) => /^(single|multi)-.*\.jpg$/.test(f));
  let verifier: CardVerifier;
  beforeAll(async () => {
    verifier = await CardVerifier.load(1);
  });

  it('takes the outlines placed by eye for cards, and not the art box or the card with the table around it', async () => {
    let cards = 0;
    for (const name of committed) {
      const label = labels.find((p) => path.basename(p.file) === name.replace(/^(single|multi)-/, ''))!;
      const img = await pixels(path.join(cardsDir, name));
      for (const card of label.cards) {
        const [exact, art, wide] = await verifier.verify(img, [card.corners, scaled(card.corners, 0.6), scaled(card.corners, 1.3)]);
        expect(exact, name).toBeGreaterThan(0.5);
        expect(art, name).toBeLessThan(0.5);
        expect(wide, name).toBeLessThan(0.5);
        cards++;
      }
    }
    expect(cards).toBeGreaterThanOrEqual(6);
  });

  it('takes no card-shaped patch of photos without cards', async () => {
    const taken: string[] = [];
    for (const rel of caltechPhotos()) {
      const img = await pixels(path.join(photosDir, rel));
      const w = img.width;
      const h = img.height;
      const s = Math.min(w / 63, h / 88) * 0.7;
      // a card-shaped outline at the centre and one at each quarter
      const quads = [[0.5, 0.5], [0.3, 0.4], [0.7, 0.6]].map(([fx, fy]) => {
        const cx = fx! * w;
        const cy = fy! * h;
        return [[cx - 31.5 * s, cy - 44 * s], [cx + 31.5 * s, cy - 44 * s], [cx + 31.5 * s, cy + 44 * s], [cx - 31.5 * s, cy + 44 * s]] as Quad;
      });
      const p = await verifier.verify(img, quads);
      if (p.some((v) => v >= 0.5)) taken.push(rel);
    }
    expect(taken, taken.join(', ')).toEqual([]);
  });

  it('gives the same answer every time', async () => {
    const name = committed[0]!;
    const label = labels.find((p) => path.basename(p.file) === name.replace(/^(single|multi)-/, ''))!;
    const img = await pixels(path.join(cardsDir, name));
    const a = await verifier.verify(img, [label.cards[0]!.corners]);
    expect(await verifier.verify(img, [label.cards[0]!.corners])).toEqual(a);
  });
});
