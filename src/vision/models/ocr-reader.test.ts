import fs from 'node:fs';
import sharp from 'sharp';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRgb } from '../../media/decode-rgb.ts';
import { boxesFromMap, linesInReadingOrder, loadOcrReader, OcrLanguageError, resolveOcrLanguage, type OcrLine, type OcrReader } from './ocr-reader.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

const slab = path.resolve(import.meta.dirname, '../../../../shared/datasets/graded_slabs/psa/img212_top_left.jpg');
const present = fs.existsSync(slab);
if (!present) console.warn(`ocr-reader slab tests skipped: ${slab} is absent (the shared datasets folder beside the project)`);

describe('language hints', () => {
  it('reduces BCP 47 tags to the language and defaults to auto', () => {
    expect(resolveOcrLanguage(undefined)).toBe('auto');
    expect(resolveOcrLanguage('')).toBe('auto');
    expect(resolveOcrLanguage('en-US')).toBe('en');
    expect(resolveOcrLanguage('ZH_Hans')).toBe('zh');
  });

  it('refuses languages the model cannot read, with a stable code', () => {
    const err = (() => {
      try {
        resolveOcrLanguage('ja');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(OcrLanguageError);
    expect((err as OcrLanguageError).code).toBe('unsupported_language');
    expect((err as OcrLanguageError).message).toMatch(/auto, en, zh/);
  });
});

describe('detection geometry', () => {
  it('turns a text blob of the probability map into its box grown by the unclip distance, in image pixels', () => {
    // Map 64×32 for a 128×64 image; blob covers x 10..49, y 10..19 (40×10 → rect 39×9 between pixel centres).
    const mw = 64;
    const mh = 32;
    const prob = new Float32Array(mw * mh);
    for (let y = 10; y < 20; y++) for (let x = 10; x < 50; x++) prob[y * mw + x] = 0.9;
    const boxes = boxesFromMap(prob, mw, mh, 128, 64);
    expect(boxes).toHaveLength(1);
    // d = 39·9·1.5 / (2·(39+9)) ≈ 5.48, so the map rect is x 4.5..54.5, y 4.5..24.5, doubled.
    expect(boxes[0]).toEqual([
      [9, 9],
      [109, 9],
      [109, 49],
      [9, 49],
    ]);
  });

  it('drops blobs whose mean probability is below the box threshold, and thin specks', () => {
    const mw = 64;
    const mh = 32;
    const prob = new Float32Array(mw * mh);
    for (let y = 5; y < 15; y++) for (let x = 5; x < 30; x++) prob[y * mw + x] = 0.45;
    for (let x = 40; x < 60; x++) prob[25 * mw + x] = 0.95;
    expect(boxesFromMap(prob, mw, mh, 64, 32)).toEqual([]);
  });

  it('reads rows top to bottom and left to right, joins close boxes of a row, keeps columns apart', () => {
    const box = (x0: number, y0: number, x1: number, y1: number): [number, number][] => [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
    ];
    const grade = box(700, 52, 740, 82);
    const name = box(100, 50, 300, 80);
    const second = box(100, 100, 250, 130);
    const secondTail = box(265, 101, 400, 129); // 15 px after "second": a split line
    const lines = linesInReadingOrder([secondTail, grade, second, name], 1000, 1000);
    expect(lines).toEqual([name, grade, box(100, 100, 400, 130)]);
  });
});

describe.skipIf(!present)('OCR on a PSA slab scan (real PP-OCRv4 models)', () => {
  let reader: OcrReader;
  let img: RgbPixels;
  let lines: OcrLine[];

  beforeAll(async () => {
    reader = await loadOcrReader();
    img = await decodeRgb(fs.readFileSync(slab), 100e6);
    lines = await reader.read(img);
  }, 60_000);
  afterAll(() => reader?.dispose());

  it('finds the label: cert number, grade and card name as lines of their own, in reading order', () => {
    const texts = lines.map((l) => l.text);
    expect(texts).toContain('69039810');
    expect(texts).toContain('MINT');
    expect(texts).toContain('9');
    expect(texts).toContain('ENTEI');
    // The label's first row comes first: year/set line, then the card number at its right.
    expect(texts.slice(0, 2)).toEqual([expect.stringMatching(/^2000 ?P\.M\. ?JAPANESE ?NEO ?2$/), '#244']);
  });

  it('counts text with the detector alone on the image shrunk: the label\'s lines, none on a blank image', async () => {
    const top = { data: img.data.subarray(0, img.width * 3 * Math.round(img.height * 0.3)), width: img.width, height: Math.round(img.height * 0.3) };
    expect(await reader.countText(top, 320)).toBeGreaterThanOrEqual(3);
    expect(await reader.countText({ data: new Uint8Array(300 * 200 * 3).fill(200), width: 300, height: 200 }, 320)).toBe(0);
  });

  it('gives 4-point polygons inside the image and probabilities in 0..1', () => {
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) {
      expect(l.polygon).toHaveLength(4);
      for (const [x, y] of l.polygon) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThan(img.width);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(y).toBeLessThan(img.height);
      }
      const [tl, tr, br, bl] = l.polygon as [[number, number], [number, number], [number, number], [number, number]];
      expect(tr[0]).toBeGreaterThan(tl[0]);
      expect(bl[1]).toBeGreaterThan(tl[1]);
      expect(br[1]).toBeGreaterThan(tr[1]);
      expect(l.prob).toBeGreaterThan(0);
      expect(l.prob).toBeLessThanOrEqual(1);
    }
    const cert = lines.find((l) => l.text === '69039810')!;
    // Top-right of the label on this 935×1547 scan.
    expect(cert.polygon[0]![0]).toBeGreaterThan(img.width / 2);
    expect(cert.polygon[0]![1]).toBeLessThan(img.height / 5);
  });

  it('with language en, gives only ASCII text and still the label', async () => {
    const en = await reader.read(img, { language: 'en' });
    for (const l of en) expect(l.text).toMatch(/^[\x20-\x7e]+$/);
    expect(en.map((l) => l.text)).toContain('69039810');
    // The card's Japanese text is gone.
    expect(en.length).toBeLessThan(lines.length);
  });

  it('a blank image gives no lines', async () => {
    const blank = { data: new Uint8Array(400 * 300 * 3).fill(255), width: 400, height: 300 };
    expect(await reader.read(blank)).toEqual([]);
  });

  it('refuses an unknown language before running the models, and malformed pixels', async () => {
    await expect(reader.read(img, { language: 'fr' })).rejects.toBeInstanceOf(OcrLanguageError);
    await expect(reader.read({ data: new Uint8Array(10), width: 4, height: 4 })).rejects.toThrow(RangeError);
  });
});

describe('a lexicon’s look (real PP-OCRv4 models)', () => {
  let reader: OcrReader;
  beforeAll(async () => {
    reader = await loadOcrReader();
  }, 120_000);
  afterAll(() => reader?.dispose());

  it('is not made on a line read surely at every letter: the lookups read such a line', async () => {
    // `Phneline` drawn large and sharp: every letter read at 0.9 or more, so not looked at for `Plumeline`, though
    // the lexicon wants every line and accepts any word (the misread photo's line is: card-reading.test.ts)
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="420" height="64"><rect width="420" height="64" fill="#fff"/><text x="12" y="46" font-family="DejaVu Sans" font-weight="bold" font-size="38" fill="#111">Phneline</text></svg>`;
    const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const img = { data: new Uint8Array(data), width: info.width, height: info.height };
    const asked: string[] = [];
    const lexicon = { words: ['Plumeline'], groups: [0], wants: (t: string) => (asked.push(t), true), accepts: () => true };
    const lines = await reader.read(img, { lexicon });
    expect(lines.map((l) => l.text)).toEqual(['Phneline']);
    expect(asked).toEqual(['Phneline']);
    expect(lines[0]!.spotted).toBeUndefined();
  }, 60_000);
});
