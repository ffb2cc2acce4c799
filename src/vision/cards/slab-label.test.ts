import { describe, expect, it } from 'vitest';
import { photoBytes } from '../../../test/helpers/photos.ts';
import sharp from 'sharp';
import { renderSlab, slabTruths } from '../../../test/helpers/slab-labels.ts';
import { runCardTask } from './card-tasks.ts';
import { findSlabLabel, labelBand, labelBesideCard, labelUp, readAsSlabLabel } from './slab-label.ts';
import type { OcrReader } from '../models/ocr-reader.ts';
import type { Quad } from '../geometry/plane-geometry.ts';

const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

describe('readAsSlabLabel', () => {
  it('reads PSA and Beckett labels as they print (graded_slabs transcriptions)', () => {
    expect(readAsSlabLabel(['2000 P.M. JAPANESE NEO 2', '#197', 'UMBREON', 'NM', 'PROMO', '7', '63055543'])).toEqual({ company: null });
    expect(readAsSlabLabel(['2002POKEMONNEODESTINY', '13', 'AZUMARILLLUMINEUX', 'NM-MT', 'FRENCH-HOLO', '86068040'])).toEqual({ company: null });
    expect(readAsSlabLabel(['1993ALPHA', 'COUNTERSPELLUB', '7.5', 'CENTERING', 'NEARMINT+', '0010538585', 'BECKETT'])).toEqual({ company: 'BGS' });
    expect(readAsSlabLabel(['2021 POKEMON', 'CHARIZARD', 'GEM MT', '10', 'PSA'])).toEqual({ company: 'PSA' });
    // a qualifier read glued to the words; other companies' words (slashes, spelled out)
    expect(readAsSlabLabel(['2003UPPERDECK', '#221', 'LEBRONJAMES', 'EX-MTPD', '6', '68034138'])).toEqual({ company: null });
    expect(readAsSlabLabel(['POKEMON (2016)', 'PIKACHU', 'NM/MINT+', '8.5', '1593909209'])).toEqual({ company: null });
    // a grader outside the seven, by its mark alone on a line
    expect(readAsSlabLabel(['KSA', 'EXCELLENT', '5'])).toEqual({ company: 'OTHER' });
  });

  it("reads comics labels: CGC's glued UNIVERSAL GRADE and tenths, CBCS and PGX with the comics scale's words (h165: none was a label)", () => {
    expect(readAsSlabLabel(['UNIVERSALGRADE', '9.8', 'UncannyX-Men#141', 'MarvelComics,1/81', '4123456001'])).toEqual({ company: null });
    expect(readAsSlabLabel(['CGC', '9.6', 'Amazing Spider-Man #300'])).toEqual({ company: 'CGC' });
    expect(readAsSlabLabel(['CBCS', '9.8', 'NM/M', 'UncannyX-Men#141', 'WHITEPAGES', '23-1234567-001'])).toEqual({ company: 'OTHER' });
    expect(readAsSlabLabel(['PGX', '9.0', 'VF/NM', 'Daredevil #323'])).toEqual({ company: 'OTHER' });
    expect(readAsSlabLabel(['9.4', 'NM', 'Daredevil #323', 'VF+ pages'])).toEqual({ company: null });
    // a raw card's decimals and words stay no label
    expect(readAsSlabLabel(['Weakness', '2.5', 'Retreat'])).toBeNull();
  });

  it('names the companies with the label reader\'s vocabulary: TAG\'s full name and mark, never a raw card\'s TAG TEAM band', () => {
    expect(readAsSlabLabel(['TAG TEAM', 'Pikachu & Zekrom GX', 'Search your deck for up to 3 Lightning Energy'])).toBeNull();
    expect(readAsSlabLabel(['TAG-TEAM', 'Pikachu & Zekrom GX', '240', '3'])).toBeNull();
    expect(readAsSlabLabel(['TAG', '2019 POKEMON', 'PIKACHU & ZEKROM GX', '9', '8123456789'])).toEqual({ company: 'TAG' });
    expect(readAsSlabLabel(['TAG GRADING', 'GEM MINT', '10'])).toEqual({ company: 'TAG' });
    expect(readAsSlabLabel(['ACE GRADING', 'MINT', '9'])).toEqual({ company: 'ACE' });
  });

  it('does not take a price tag, a note or a listing banner for a label', () => {
    expect(readAsSlabLabel(['0.10'])).toBeNull();
    expect(readAsSlabLabel(['Bon', 'Conseil'])).toBeNull();
    expect(readAsSlabLabel(['Call 0612345678', '5 EUR'])).toBeNull();
    expect(readAsSlabLabel(['Talent', 'Lame Eon', '200', '10'])).toBeNull();
    // a company's letters inside a word are not the company
    expect(readAsSlabLabel(['PSALM 7', 'MINTED 10'])).toBeNull();
  });
});

describe('labelBesideCard', () => {
  // a card 630 × 880 with its upper-left corner at (100, 300)
  const card: Quad = [[100, 300], [730, 300], [730, 1180], [100, 1180]];
  it("takes a label past a short side, within half the card's length, or inside the outline", () => {
    expect(labelBesideCard([120, 120, 700, 260], card)).toBe(true);
    expect(labelBesideCard([120, 1220, 700, 1380], card)).toBe(true);
    expect(labelBesideCard([120, 320, 700, 460], card)).toBe(true);
  });
  it("refuses a label across from a long side or far beyond a short one (h250: another slab's label made a raw card graded)", () => {
    expect(labelBesideCard([900, 320, 1500, 460], card)).toBe(false);
    expect(labelBesideCard([120, -600, 700, -450], card)).toBe(false);
  });
  it('measures along the card lying down and tilted, whichever corner its outline starts at', () => {
    const lying: Quad = [[300, 100], [300, 730], [1180, 730], [1180, 100]];
    expect(labelBesideCard([120, 120, 260, 700], lying)).toBe(true);
    expect(labelBesideCard([320, 900, 460, 1500], lying)).toBe(false);
    const t = (x: number, y: number): [number, number] => [500 + (x - 500) * Math.cos(0.3) - (y - 700) * Math.sin(0.3), 700 + (x - 500) * Math.sin(0.3) + (y - 700) * Math.cos(0.3)];
    const tilted = card.map(([x, y]) => t(x, y)) as unknown as Quad;
    const [lx, ly] = t(415, 190);
    expect(labelBesideCard([lx - 200, ly - 50, lx + 200, ly + 50], tilted)).toBe(true);
    const [ox, oy] = t(1200, 390);
    expect(labelBesideCard([ox - 200, oy - 50, ox + 200, oy + 50], tilted)).toBe(false);
  });
});

describe('labelBesideCard with the way its text stands up', () => {
  const upright: Quad = [[100, 300], [730, 300], [730, 1180], [100, 1180]];
  const up: [number, number] = [0, -1];
  it('takes a label above its card as its text stands, an upside-down slab\'s below it', () => {
    expect(labelBesideCard([120, 120, 700, 260], upright, up)).toBe(true);
    expect(labelBesideCard([120, 1220, 700, 1380], upright, [0, 1])).toBe(true);
  });
  it("refuses another slab's label below a card, and an upright label beside a card lying down (h255: both passed on distance)", () => {
    expect(labelBesideCard([130, 1250, 700, 1400], upright, up)).toBe(false);
    const lying: Quad = [[100, 300], [980, 300], [980, 930], [100, 930]];
    expect(labelBesideCard([1070, 230, 1730, 400], lying, up)).toBe(false);
    // a slab lying down, its label's text turned with it, is still its card's
    expect(labelBesideCard([1000, 330, 1150, 900], lying, [1, 0])).toBe(true);
  });
  it('reads which way the text stands up from its lines', () => {
    expect(labelUp({ lines: [{ text: 'PSA', prob: 1, polygon: [[10, 10], [90, 10], [90, 30], [10, 30]] }] })).toEqual([0, -40]);
    expect(labelUp({ lines: [] })).toBeUndefined();
    // a line taller than wide was turned to be read: its corners say nothing of the label's up (h256)
    expect(labelUp({ lines: [{ text: 'PSA', prob: 1, polygon: [[10, 10], [90, 10], [90, 30], [10, 30]] }, { text: '10', prob: 1, polygon: [[200, 0], [220, 0], [220, 80], [200, 80]] }] })).toEqual([0, -40]);
  });
});

describe('labelBand', () => {
  // a 200 x 300 photo: a grey card with a red strip above it
  const width = 200;
  const height = 300;
  const data = new Uint8Array(width * height * 3).fill(20);
  const paint = (x0: number, y0: number, x1: number, y1: number, rgb: number[]) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data.set(rgb, (y * width + x) * 3);
  };
  paint(50, 100, 150, 240, [128, 128, 128]);
  paint(60, 70, 140, 95, [255, 0, 0]);
  const card: Quad = [[49.5, 99.5], [149.5, 99.5], [149.5, 239.5], [49.5, 239.5]];
  const red = (b: { data: Uint8Array; width: number; height: number }, y0: number, y1: number) => {
    let n = 0;
    for (let y = Math.floor(y0 * b.height); y < y1 * b.height; y++) for (let x = 0; x < b.width; x++) if (b.data[(y * b.width + x) * 3]! > 200 && b.data[(y * b.width + x) * 3 + 1]! < 50) n++;
    return n / (b.width * b.height);
  };

  it('samples the strip beyond the top upright, the card at its bottom', () => {
    const { band, toImage } = labelBand({ data, width, height }, card, 0);
    expect(band.width).toBeGreaterThanOrEqual(480);
    expect(red(band, 0.55, 1)).toBeGreaterThan(0.1);
    expect(red(band, 0, 0.4)).toBe(0);
    // the band's bottom centre is the card's top side
    const [x, y] = toImage(band.width / 2 - 0.5, band.height - 0.5);
    expect(x).toBeCloseTo(99.5, 0);
    expect(y).toBeCloseTo(99.5, 0);
  });

  it('turns the strip beyond the bottom so an upside-down label reads upright', () => {
    expect(red(labelBand({ data, width, height }, card, 1).band, 0, 1)).toBe(0);
    // the same photo upside down: the strip is now below the card, and its text would be upside down
    const flipped = new Uint8Array(data.length);
    for (let i = 0; i < width * height; i++) flipped.set(data.subarray(i * 3, i * 3 + 3), (width * height - 1 - i) * 3);
    const turned: Quad = [[width - 1 - 149.5, height - 1 - 239.5], [width - 1 - 49.5, height - 1 - 239.5], [width - 1 - 49.5, height - 1 - 99.5], [width - 1 - 149.5, height - 1 - 99.5]];
    const upright = labelBand({ data, width, height }, card, 0).band;
    const band = labelBand({ data: flipped, width, height }, turned, 1).band;
    expect(band.width).toBe(upright.width);
    let diff = 0;
    for (let i = 0; i < band.data.length; i++) diff += Math.abs(band.data[i]! - upright.data[i]!);
    expect(diff / band.data.length).toBeLessThan(2);
  });

  it('samples each pixel where its toImage says, for cards upright and lying down, tilted, either side', () => {
    // red is x and green 0.8 y: a bilinear sample of it at (x, y) is that, to the rounding
    const ramp = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) ramp.set([x, Math.round(0.8 * y), 100], (y * width + x) * 3);
    const quads: Quad[] = [
      card,
      [[60, 110], [140, 95], [150, 230], [55, 245]],
      [[40, 120], [170, 110], [175, 190], [45, 200]],
    ];
    let checked = 0;
    for (const q of quads) {
      for (const side of [0, 1] as const) {
        const { band, toImage } = labelBand({ data: ramp, width, height }, q, side);
        for (let y = 0; y < band.height; y += 7) {
          for (let x = 0; x < band.width; x += 7) {
            const [px, py] = toImage(x, y);
            if (px < 0 || py < 0 || px >= width - 1 || py >= height - 1) continue;
            const o = (y * band.width + x) * 3;
            expect(Math.abs(band.data[o]! - px)).toBeLessThanOrEqual(1);
            expect(Math.abs(band.data[o + 1]! - 0.8 * py)).toBeLessThanOrEqual(1.5);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});

describe('findSlabLabel', () => {
  const img = { data: new Uint8Array(200 * 300 * 3).fill(90), width: 200, height: 300 };
  const card: Quad = [[49.5, 99.5], [149.5, 99.5], [149.5, 239.5], [49.5, 239.5]];
  const fake = (boxes: number) => {
    const calls = { look: 0, read: 0 };
    const ocr: OcrReader = {
      countText: async () => (calls.look++, boxes),
      read: async () => (calls.read++, ['CHARIZARD-HOLO', 'GEM MT 10', '12345678'].map((text) => ({ text, prob: 0.99, polygon: [[0, 0], [10, 0], [10, 5], [0, 5]] as [number, number][] }))),
      dispose: async () => {},
    };
    return { ocr, calls };
  };

  it('reads a strip only when the text detector alone finds three pieces of text or more in it', async () => {
    const few = fake(2);
    expect(await findSlabLabel(few.ocr, img, card)).toBeNull();
    expect(few.calls).toEqual({ look: 2, read: 0 });
    const many = fake(3);
    const label = await findSlabLabel(many.ocr, img, card);
    expect(label?.lines.map((l) => l.text)).toEqual(['CHARIZARD-HOLO', 'GEM MT 10', '12345678']);
    expect(many.calls).toEqual({ look: 1, read: 1 });
  });
});

describe('slab told by its label in grading', () => {
  it('calls the BGS slab a slab, with the label box above the card', async () => {
    const r = await runCardTask({ kind: 'card', image: ab(photoBytes('cards/slab-counterspell_bgs.jpg')), maxPixels: 100e6, op: 'localize', options: { noImageOutput: true } });
    if ('refused' in r) throw new Error('refused');
    expect(r.cards?.[0]?.kind).toBe('slab');
    const box = r.cards![0]!.labelBox!;
    const top = Math.min(...r.cards![0]!.quad.map((p) => p[1]));
    expect(box[3]).toBeLessThan(top);
    expect(box[2] - box[0]).toBeGreaterThan((Math.max(...r.cards![0]!.quad.map((p) => p[0])) - Math.min(...r.cards![0]!.quad.map((p) => p[0]))) * 0.5);
  });

  it('label: finds a holder\'s label with no card beside it (a scan cropped to the holder), along the top or turned over', async () => {
    const truth = slabTruths(1).find((t) => t.company === 'SGC')!;
    for (const rotation of [0, 180]) {
      const jpeg = await renderSlab(truth, { rotation, size: 900 });
      // cropped to the holder: the detector's card is absent or not under the label
      const crop = await sharp(jpeg).extract({ left: 50, top: 50, width: (await sharp(jpeg).metadata()).width! - 100, height: (await sharp(jpeg).metadata()).height! - 100 }).jpeg().toBuffer();
      const r = await runCardTask({ kind: 'card', image: ab(crop), maxPixels: 100e6, op: 'label', options: {} });
      if ('refused' in r) throw new Error('refused');
      expect(r.found).toBe(true);
      expect(r.label!.lines.map((l) => l.text).join(' ')).toContain(truth.cert);
      // the label's box lies in the image's top (or, turned over, bottom) third
      const mid = (r.label!.box[1] + r.label!.box[3]) / 2;
      if (rotation === 0) expect(mid).toBeLessThan(r.height / 3);
      else expect(mid).toBeGreaterThan((r.height * 2) / 3);
    }
  });

  it('leaves raw cards raw', async () => {
    for (const f of ['cards/single-1730716218_jpg.rf.61c0c396008ef0622faa73ed585c18fd.jpg', 'cards/single-440572034_972548190970443_5165651770067805243_n_jpg.rf.cef57ed4e007c98c42289199e88f6776.jpg']) {
      const r = await runCardTask({ kind: 'card', image: ab(photoBytes(f)), maxPixels: 100e6, op: 'localize', options: { noImageOutput: true } });
      if ('refused' in r) throw new Error('refused');
      expect(r.cards?.[0]?.kind).toBe('raw');
    }
  });
});
