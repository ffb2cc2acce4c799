import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outlineIsFrame, runCardTask } from './card-tasks.ts';
import type { Quad } from './card-geometry.ts';

const datasets = path.resolve(import.meta.dirname, '../../../../shared/datasets');
const present = fs.existsSync(path.join(datasets, 'pokemon_sv151_reference'));
const scan = { width: 733, height: 1024 };

describe("a scan cropped to its card: the image's frame is the card", () => {
  it('takes an outline run past the frame on two corners and short of it on the other side (the detector on official scans)', () => {
    expect(outlineIsFrame([[-4, -2.1], [734.3, -1.3], [735.2, 1011.9], [-2.2, 1011.9]], scan)).toBe(true);
    // corners in another order are the same outline
    expect(outlineIsFrame([[735.2, 1011.9], [-2.2, 1011.9], [-4, -2.1], [734.3, -1.3]], scan)).toBe(true);
  });

  it('keeps an outline inside the frame (a card photographed with a margin), one far from a corner, and a frame that is no card shape', () => {
    expect(outlineIsFrame([[8, 9], [724, 8], [725, 1015], [7, 1016]], scan)).toBe(false);
    expect(outlineIsFrame([[-4, -2], [734, -1], [735, 900], [-2, 900]], scan)).toBe(false);
    const q: Quad = [[-4, -2], [902, -1], [903, 1202], [-3, 1203]];
    expect(outlineIsFrame(q, { width: 900, height: 1200 })).toBe(false);
  });

  it.skipIf(!present)('centering of an official scan cropped to the card: the frame measured, about 51/49 (65/35 before)', async () => {
    const bytes = fs.readFileSync(path.join(datasets, 'pokemon_sv151_reference/images/001_Bulbasaur.jpg'));
    const r = await runCardTask({ kind: 'card', image: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), maxPixels: 40e6, op: 'centering', options: { noImageOutput: true } });
    expect('refused' in r).toBe(false);
    if ('refused' in r) return;
    // as skip-location reports the image as the card: 0 to its width and height, nothing outside it
    expect(r.quad).toEqual([[0, 0], [733, 0], [733, 1024], [0, 1024]]);
    expect(r.cards![0]!.quad).toEqual(r.quad);
    const [top] = r.centering!.topBottom.split('/').map(Number);
    expect(Math.abs(top! - 50)).toBeLessThan(3);
  }, 60_000);
});
