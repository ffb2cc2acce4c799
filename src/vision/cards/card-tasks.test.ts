import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { photoBytes } from '../../../test/helpers/photos.ts';
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

describe('a scan cropped to its card is one box to every endpoint', () => {
  it.skipIf(!present)('read (recognition) reports the frame as localize (/detect) does: h270, 12 px short of it before', async () => {
    const bytes = fs.readFileSync(path.join(datasets, 'pokemon_sv151_reference/images/001_Bulbasaur.jpg'));
    const run = async (op: 'read' | 'localize') => {
      const r = await runCardTask({ kind: 'card', image: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), maxPixels: 40e6, op, options: {} });
      if ('refused' in r || !r.found) throw new Error(`no card (${op})`);
      return r;
    };
    const box = (q: Quad) => [Math.min(...q.map((p) => p[0])), Math.min(...q.map((p) => p[1])), Math.max(...q.map((p) => p[0])), Math.max(...q.map((p) => p[1]))];
    const [read, localized] = [await run('read'), await run('localize')];
    expect(box(localized.quad!)).toEqual([0, 0, 733, 1024]);
    expect(box(read.quad!)).toEqual(box(localized.quad!));
    expect(box(read.cards![0]!.quad)).toEqual(box(localized.cards![0]!.quad));
    // read as before: its text found
    expect(read.readings![0]!.lines.some((l) => /bulbasaur/i.test(l.text))).toBe(true);
  }, 60_000);
});

describe('a card lying sideways is measured upright', () => {
  const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  const side = (q: Quad, k: number) => Math.hypot(q[(k + 1) % 4]![0] - q[k]![0], q[(k + 1) % 4]![1] - q[k]![1]);
  it('reports the outline from its upper-left corner with a short upper side, and grades it as it grades the photo the right way up', async () => {
    const bytes = photoBytes('cards/single-1730716218_jpg.rf.61c0c396008ef0622faa73ed585c18fd.jpg');
    const grade = async (img: Buffer) => {
      const r = await runCardTask({ kind: 'card', image: ab(img), maxPixels: 40e6, op: 'grade', options: { noImageOutput: true } });
      if ('refused' in r || !r.found || !r.surface || !r.wear) throw new Error('no card graded');
      return r;
    };
    const up = await grade(await sharp(bytes).jpeg({ quality: 92 }).toBuffer());
    const turned = await grade(await sharp(bytes).rotate(90).jpeg({ quality: 92 }).toBuffer());
    for (const r of [up, turned]) expect(side(r.quad!, 0)).toBeLessThan(side(r.quad!, 1));
    expect(side(turned.cards![0]!.quad, 0)).toBeLessThan(side(turned.cards![0]!.quad, 1));
    // taken as turned counter-clockwise, the card's upper side is the image's left: its first corner is the lower-left one
    expect(turned.quad![0]![1]).toBeGreaterThan(turned.quad![1]![1]);
    // squashed into an upright card's shape, its text lines read as scratches (surface 9.2 → 3.7 on a train photo)
    expect(Math.abs(turned.surface!.grade - up.surface!.grade)).toBeLessThan(1);
    expect(turned.centering?.grade ?? null).not.toBeNull();
  }, 60_000);
});

describe('a card photographed upside down is measured the way its text reads', () => {
  const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  it("turns it over (its crop was upside down and top/bottom centering swapped), and leaves one the right way up as it is", async () => {
    const bytes = photoBytes('cards/single-440572034_972548190970443_5165651770067805243_n_jpg.rf.cef57ed4e007c98c42289199e88f6776.jpg');
    const centering = async (img: Buffer) => {
      const r = await runCardTask({ kind: 'card', image: ab(img), maxPixels: 40e6, op: 'centering', options: { noImageOutput: true } });
      if ('refused' in r || !r.found || r.unfit) throw new Error('no card measured');
      return r;
    };
    const up = await centering(bytes);
    const over = await centering(await sharp(bytes).rotate(180).jpeg({ quality: 92 }).toBuffer());
    expect(up.turnedOver).toBeUndefined();
    expect(over.turnedOver).toBe(true);
    // the card's own upper-left corner comes first both ways: in the turned photo it lies where 180° takes it
    const [w, h] = [up.width, up.height];
    // (each corner nearest the one 180° takes it to: the two outlines are not placed alike to the pixel)
    const nearest = ([x, y]: [number, number]) => over.quad!.map(([u, v], j) => [Math.hypot(u - (w - 1 - x), v - (h - 1 - y)), j] as const).sort((a, b) => a[0] - b[0])[0]![1];
    expect(up.quad!.map((p) => nearest(p))).toEqual([0, 1, 2, 3]);
    expect(over.cards![0]!.quad).toEqual(over.quad);
  }, 60_000);
});

describe('LOUPE_CARD_LOCATOR', () => {
  const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  it('chooses how grading finds its card, never how recognition does (with `classical` a photo was read whole and named nothing)', async () => {
    const bytes = photoBytes('cards/read-416032719_901419734749956_6708327569765181669_n_jpg.rf.6fc7207f060c960502cef148cb233d25.jpg');
    const read = async (locator: 'classical' | 'detector') => {
      const r = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 40e6, op: 'read', options: { locator } });
      if ('refused' in r) throw new Error('refused');
      return r;
    };
    const [classical, detector] = [await read('classical'), await read('detector')];
    expect(classical.whole).toBeUndefined();
    expect(classical.quad).toEqual(detector.quad);
  }, 60_000);
});

const binder = path.join(datasets, 'real_card_photos/shrey_pokemon_card_outliner/17307275182_jpeg.rf.9e8404db904ad95158ab79f92d26efc7.jpg');
describe.skipIf(!fs.existsSync(binder))('a binder page photographed 3:4, its near row past the foot (train split, shared data)', () => {
  it('is read as its cards, not as one card the whole photo (h108: the nine cards found were dropped for the frame)', async () => {
    const bytes = fs.readFileSync(binder);
    const r = await runCardTask({ kind: 'card', image: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, maxPixels: 40e6, op: 'read', options: {} });
    if ('refused' in r) throw new Error('refused');
    expect(r.whole).toBeUndefined();
    expect(r.cards!.length).toBeGreaterThanOrEqual(6);
  }, 60_000);
});
