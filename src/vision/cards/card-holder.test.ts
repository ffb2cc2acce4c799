import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { photosDir } from '../../../test/helpers/photos.ts';
import { CARD_HOLDER_FILE, CardHolderClassifier, HOLDER_VIEW } from './card-holder.ts';
import { uprightView } from './card-verifier.ts';
import type { Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

async function pixels(file: string): Promise<RgbPixels> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

describe('holder views', () => {
  it('match training/card-detector/train_holder.py on a real photo (so the network sees what it learnt on)', async () => {
    const ref = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/card-detector/holder-view-parity.json'), 'utf8')) as { file: string; quad: Quad; points: [number, number][]; rgb: number[][] };
    const view = uprightView(await pixels(path.join(photosDir, ref.file.replace(/^photos\//, ''))), ref.quad, HOLDER_VIEW);
    const plane = HOLDER_VIEW.width * HOLDER_VIEW.height;
    let worst = 0;
    ref.rgb.forEach((rgb, n) => {
      const [i, j] = ref.points[n]!;
      rgb.forEach((v, c) => (worst = Math.max(worst, Math.abs(view[c * plane + j * HOLDER_VIEW.width + i]! - v))));
    });
    // OpenCV's remap works in 1/32-pixel steps and the two JPEG decoders may differ by a level
    expect(worst).toBeLessThan(0.02);
  });
});

interface Labelled {
  file: string;
  cards: { corners: Quad; kind: string }[];
}

describe('holder classifier on real photos', () => {
  const labels = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/card-detector/real-corners.json'), 'utf8')) as { photos: Labelled[] }).photos;
  const cardsDir = path.join(photosDir, 'cards');
  let classifier: CardHolderClassifier;
  beforeAll(async () => {
    classifier = await CardHolderClassifier.load(1, CARD_HOLDER_FILE);
  });

  const heldOf = async (name: string) => {
    const label = labels.find((p) => path.basename(p.file) === name.replace(/^[a-z]+-/, ''))!;
    return { kinds: label.cards.map((c) => c.kind), p: await classifier.held(await pixels(path.join(cardsDir, name)), label.cards.map((c) => c.corners)) };
  };

  it('calls the single bare cards of the committed photos bare, and the card in a rigid holder held', async () => {
    const singles = fs.readdirSync(cardsDir).filter((f) => /^(single|read)-.*\.jpg$/.test(f));
    expect(singles.length).toBeGreaterThanOrEqual(5);
    for (const name of singles) {
      const { kinds, p } = await heldOf(name);
      expect(kinds, name).toEqual(['raw']);
      expect(p[0], name).toBeLessThan(0.5);
    }
    const rigid = await heldOf('held-1730718170_jpg.rf.167d50557e4430b542c58f6c23ef836c.jpg');
    expect(rigid.kinds).toEqual(['holder']);
    expect(rigid.p[0]).toBeGreaterThanOrEqual(0.5);
    // held-1730717892 (a tight penny sleeve on a 310 x 430 photo) is one the shipped model misses,
    // as it misses most single sleeved cards of the validation photos (docs/card-detector.md)
  });

  it('gives the same answer every time, and one per outline', async () => {
    const label = labels.find((p) => p.cards.length > 1 && fs.existsSync(path.join(cardsDir, `multi-${path.basename(p.file)}`)))!;
    const img = await pixels(path.join(cardsDir, `multi-${path.basename(label.file)}`));
    const quads = label.cards.map((c) => c.corners);
    const a = await classifier.held(img, quads);
    expect(a).toHaveLength(quads.length);
    expect(await classifier.held(img, quads)).toEqual(a);
    expect(await classifier.held(img, [])).toEqual([]);
  });
});
