import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { caltechPhotos, photoBytes, photosDir } from '../../../test/helpers/photos.ts';
import { readCardText } from '../../services/recognition/card-text.ts';
import { runCardTask } from '../cards/card-tasks.ts';
import { loadCv, warpCard, warpCardParts, type Quad } from '../cards/card-geometry.ts';
import type { CardResult } from '../engine/vision-tasks.ts';
import type { OcrReader } from '../models/ocr-reader.ts';
import { eitherWayUp, FOOT_ZOOM_MIN_CARD, FOOT_ZOOM_WIDTH, readCard } from './card-reading.ts';

const toTask = (bytes: Buffer) => ({ kind: 'card' as const, image: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, maxPixels: 100e6, op: 'read' as const, options: { locator: 'detector' as const } });
const read = async (bytes: Buffer) => (await runCardTask(toTask(bytes))) as CardResult;
const single = fs.readdirSync(path.join(photosDir, 'cards')).find((f) => f.startsWith('single-440572034'))!;

describe('reading cards for recognition', () => {
  it('reads the largest card of a multi-card photo, or every card with everyCard, listing them all either way', async () => {
    const multi = fs.readdirSync(path.join(photosDir, 'cards')).find((f) => f.startsWith('multi-'))!;
    const bytes = photoBytes(`cards/${multi}`);
    const task = toTask(bytes);
    const all = (await runCardTask({ ...task, options: { ...task.options, everyCard: true } })) as CardResult;
    expect(all.readings!.length).toBeGreaterThanOrEqual(2);
    const largest = await read(bytes);
    expect(largest.cards).toEqual(all.cards);
    expect(largest.readings!.map((r) => r.index)).toEqual([0]);
    expect(largest.readings![0]!.lines).toEqual(all.readings!.find((r) => r.index === 0)!.lines);
  }, 60_000);

  it('reads the collector number and total of a real French card (as labelled by eye: 036/190)', async () => {
    const r = await read(photoBytes(`cards/${single}`));
    expect(r.found).toBe(true);
    expect(r.whole).toBeUndefined();
    expect(r.readings).toHaveLength(1);
    const clues = readCardText(r.readings![0]!.lines);
    expect(clues.numbers.map((n) => `${n.number}/${n.total}`)).toContain('036/190');
    // the card's short side in the decoded pixels the card was read in (the photo's own here: 720 × 960
    // is not reduced), the mean of its top and bottom sides (about 360 and 416 px): it tells
    // identification how surely small print was read
    const [a, b, c, d] = r.quad!;
    const short = (Math.hypot(b[0] - a[0], b[1] - a[1]) + Math.hypot(c[0] - d[0], c[1] - d[1])) / 2;
    expect(Math.abs(r.readings![0]!.cardWidth - short)).toBeLessThan(1);
    // the bands' lines sit in the top and bottom 14 % of the card
    for (const l of r.readings![0]!.lines) expect(l.box.y0 < 0.15 || l.box.y0 >= 0.85).toBe(true);
  });

  it('reads a scan cropped to the card whole, and the same card turned upside down the right way', async () => {
    const r = await read(photoBytes(`cards/${single}`));
    const [[x0, y0], , [x1, y1]] = r.quad!;
    const crop = await sharp(photoBytes(`cards/${single}`)).extract({ left: Math.ceil(x0), top: Math.ceil(y0), width: Math.floor(x1 - x0) - 2, height: Math.floor(y1 - y0) - 2 }).jpeg().toBuffer();
    const turned = await sharp(crop).rotate(180).jpeg().toBuffer();
    for (const [bytes, rotation] of [[crop, 0], [turned, 180]] as const) {
      const c = await read(bytes);
      expect(c.found).toBe(true);
      const numbers = readCardText(c.readings![0]!.lines).numbers.map((n) => `${n.number}/${n.total}`);
      expect(numbers, `rotation ${rotation}`).toContain('036/190');
      expect(c.readings![0]!.rotation).toBe(rotation);
      // a scan cropped to its card is a card's outline: its width is the card's
      expect(c.wholeIsCard).toBe(true);
      expect(c.readings![0]!.cardWidth).toBe(Math.floor(x1 - x0) - 2);
    }
  });

  it('puts beside a small card’s misread name line the species name it most likely shows (name-lexicon.ts)', async () => {
    // a train-split French Plumeline (Oricorio) shrunk to 400 px: its card about 200 px wide, its name read `Phneline`
    const spot = fs.readdirSync(path.join(photosDir, 'cards')).find((f) => f.startsWith('spot-'))!;
    const r = await read(photoBytes(`cards/${spot}`));
    const spotted = r.readings![0]!.lines.filter((l) => l.spotted);
    expect(spotted).toHaveLength(1);
    expect(spotted[0]!.spotted!.word).toBe('Plumeline');
    expect(spotted[0]!.text).not.toContain('Plumeline');
    expect(spotted[0]!.box.y1).toBeLessThan(0.15);
    // a name read as it is needs no look
    const plain = await read(photoBytes(`cards/${single}`));
    expect(plain.readings![0]!.lines.filter((l) => l.spotted)).toEqual([]);
    // no look where no Pokémon catalog is searched (the service's `names`): the same reading, nothing spotted
    const task = toTask(photoBytes(`cards/${spot}`));
    const unlooked = (await runCardTask({ ...task, options: { ...task.options, names: false } })) as CardResult;
    expect(unlooked.readings![0]!.lines.filter((l) => l.spotted)).toEqual([]);
    expect(unlooked.readings![0]!.lines.map((l) => l.text)).toEqual(r.readings![0]!.lines.map((l) => l.text));
  });

  it('puts beside a species name read right the form word misread after it (name-lexicon.ts)', async () => {
    // a train-split French Éthernatos Radieux (Radiant Eternatus) shrunk to 400 px, its name line read `EthernatosRdlauR`
    const form = fs.readdirSync(path.join(photosDir, 'cards')).find((f) => f.startsWith('form-'))!;
    const r = await read(photoBytes(`cards/${form}`));
    const spotted = r.readings![0]!.lines.filter((l) => l.spotted);
    expect(spotted).toHaveLength(1);
    expect(spotted[0]!.spotted!.word.replace(' ', '')).toBe('EthernatosRadieux');
    expect(spotted[0]!.text).toMatch(/^Ethernatos/);
    expect(spotted[0]!.text).not.toContain('Radieux');
  });

  it('finds nothing to read in a photo with no card that is not card-shaped', async () => {
    const wide = caltechPhotos().find((rel) => rel.includes('airplanes'))!;
    const r = await read(photoBytes(wide));
    expect(r.found).toBe(false);
    expect(r.readings).toBeUndefined();
  });

  it('reads a card-shaped photo with no card whole, as no card of known size', async () => {
    // a 3:4 phone photo of no card: read whole (the client may have sent a card cropped close), its
    // width not the card's, so nothing read in it counts as small print read surely
    const photo = caltechPhotos().find((rel) => rel.includes('airplanes'))!;
    const tall = await sharp(photoBytes(photo)).resize(630, 880, { fit: 'cover' }).jpeg().toBuffer();
    const r = await read(tall);
    expect(r.whole).toBe(true);
    expect(r.wholeIsCard).toBe(false);
    expect(r.readings!.map((x) => x.cardWidth)).toEqual([0]);
  });

  it('reads the card turned over only when its foot shows no number and its top band no word read surely', async () => {
    const { cv } = await loadCv();
    const img = { data: new Uint8Array(400 * 560 * 3).fill(128), width: 400, height: 560 };
    const quad: Quad = [[20, 20], [379, 20], [379, 539], [20, 539]];
    // every band reads the same line, at its top left
    const reads = async (prob: number) => {
      let n = 0;
      const ocr: OcrReader = {
        read: async () => (n++, [{ text: 'Bulbasaur', prob, polygon: [[10, 10], [200, 10], [200, 40], [10, 40]] }]),
        countText: async () => 0,
        dispose: async () => {},
      };
      const reading = await readCard(cv, ocr, img, quad);
      return { n, rotation: reading.rotation };
    };
    // the two bands, then (no number read) the bottom band's two halves larger
    expect(await reads(0.99)).toEqual({ n: 4, rotation: 0 });
    // not sure enough: the turned-over bottom band is read too (and, showing no number either, loses)
    expect(await reads(0.9)).toEqual({ n: 5, rotation: 0 });
  });

  it('reads the bottom band’s halves larger when the band read whole shows no number, and keeps only their number-like lines', async () => {
    const { cv } = await loadCv();
    const img = { data: new Uint8Array(400 * 560 * 3).fill(128), width: 400, height: 560 };
    const quad: Quad = [[20, 20], [379, 20], [379, 539], [20, 539]];
    const widths: number[] = [];
    const ocr: OcrReader = {
      read: async (part) => {
        widths.push(part.width);
        // the halves (800 px each of 1600) show the number at their left, and a word
        if (part.width === FOOT_ZOOM_WIDTH / 2) return [{ text: '51/114', prob: 0.9, polygon: [[100, 100], [300, 100], [300, 140], [100, 140]] }, { text: 'Retraite', prob: 0.9, polygon: [[400, 10], [600, 10], [600, 40], [400, 40]] }];
        return [{ text: 'Bulbasaur', prob: 0.99, polygon: [[10, 10], [200, 10], [200, 40], [10, 40]] }];
      },
      countText: async () => 0,
      dispose: async () => {},
    };
    const reading = await readCard(cv, ocr, img, quad);
    expect(widths).toEqual([1000, 1000, FOOT_ZOOM_WIDTH / 2, FOOT_ZOOM_WIDTH / 2]);
    const numbers = reading.lines.filter((l) => l.text === '51/114');
    // 100–300 px of each 800-px half
    expect(numbers.map((l) => [l.box.x0, l.box.x1].map((x) => Math.round(x * 10000) / 10000))).toEqual([
      [0.0625, 0.1875],
      [0.5625, 0.6875],
    ]);
    expect(reading.lines.filter((l) => l.text === 'Retraite')).toEqual([]);
    for (const l of numbers) expect(l.box.y0).toBeGreaterThan(0.86);
    // a card under FOOT_ZOOM_MIN_CARD pixels wide in the photo shows no legible number at any size
    widths.length = 0;
    const small: Quad = [[20, 20], [20 + FOOT_ZOOM_MIN_CARD - 10, 20], [20 + FOOT_ZOOM_MIN_CARD - 10, 460], [20, 460]];
    await readCard(cv, ocr, img, small);
    expect(widths).toEqual([1000, 1000]);
  });

  it('warps only the parts it reads, as the whole card warped and cut would have them', async () => {
    const { cv } = await loadCv();
    const w = 640;
    const h = 480;
    const data = new Uint8Array(w * h * 3);
    for (let i = 0; i < w * h; i++) data.set([(i * 7) % 251, (i >> 3) % 253, (i % w) % 255], i * 3);
    const img = { data, width: w, height: h };
    const quad: Quad = [[100.3, 40.2], [420.7, 60.1], [400.2, 455.9], [80.6, 430.4]];
    const whole = warpCard(cv, img, quad, 300);
    const [foot] = warpCardParts(cv, img, quad, [{ width: 300, y0: 0.86, y1: 1 }]);
    const from = Math.round(0.86 * whole.height);
    expect(foot!.height).toBe(whole.height - from);
    let diff = 0;
    for (let i = 0; i < foot!.data.length; i++) diff += Math.abs(foot!.data[i]! - whole.data[from * 300 * 3 + i]!);
    expect(diff / foot!.data.length).toBeLessThan(1);
  });
});

describe('the layout of a card whose way up is not known', () => {
  const look = (layout: 'framed' | 'full' | null, plain: number) => ({ layout, plain });
  it('is framed when either way up shows a plain box, full only when both show artwork', () => {
    // an upside-down regular card: as shown, its artwork window sits where the box is read
    expect(eitherWayUp(look('full', 0.2), look('framed', 0.9))?.layout).toBe('framed');
    expect(eitherWayUp(look('framed', 0.8), look('full', 0.1))?.layout).toBe('framed');
    expect(eitherWayUp(look('full', 0.2), look('full', 0.3))?.layout).toBe('full');
    expect(eitherWayUp(look('full', 0.2), look(null, 0.5))?.layout).toBeNull();
    expect(eitherWayUp(null, null)).toBeNull();
  });
});
