import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { caltechPhotos, photoBytes, photosDir } from '../../../test/helpers/photos.ts';
import { CardDetector, cardShapedFromEachSide, type DetectedCard } from './card-detector.ts';
import { polygonArea, sideLengths, type Point, type Quad } from '../geometry/plane-geometry.ts';
import { decodeCardPhoto } from './card-tasks.ts';

/**
 * The trained detector on real photos committed with the tests (test/fixtures/photos/cards,
 * CC BY 4.0 and MIT; corners labelled by eye in test/fixtures/card-detector/real-corners.json).
 */
interface Labelled {
  file: string;
  cards: { corners: Quad; kind: string }[];
}
const labels = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/card-detector/real-corners.json'), 'utf8')) as { photos: Labelled[] }).photos;
const labelOf = (name: string) => labels.find((p) => path.basename(p.file) === name)!;
const train = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../training/card-detector/train-corners.json'), 'utf8')) as { photos: Labelled[] }).photos;
/** A train-split fixture's labels (training/card-detector/train-corners.json), by its name less the `kind-` prefix. */
const trainLabelOf = (fixture: string) => train.find((p) => path.basename(p.file) === fixture.replace(/^[a-z]+-/, ''))!;

let detector: CardDetector;
beforeAll(async () => {
  detector = await CardDetector.load(1);
});

async function detect(rel: string): Promise<{ cards: DetectedCard[]; scale: [number, number] }> {
  const img = await decodeCardPhoto(photoBytes(rel), 100e6);
  const cards = await detector.detect({ data: img.data, width: img.width, height: img.height });
  return { cards, scale: [img.originalWidth / img.width, img.originalHeight / img.height] };
}

/** Worst corner's distance from the label, as a share of the card's short side. */
function worstCorner(found: Quad, scale: [number, number], truth: Quad): number {
  const short = Math.min(Math.hypot(truth[1][0] - truth[0][0], truth[1][1] - truth[0][1]), Math.hypot(truth[3][0] - truth[0][0], truth[3][1] - truth[0][1]));
  return Math.max(...truth.map((t, k) => Math.hypot((found[k]![0] + 0.5) * scale[0] - 0.5 - t[0], (found[k]![1] + 0.5) * scale[1] - 0.5 - t[1]))) / short;
}

const area = (q: readonly Point[]) => Math.abs(polygonArea(q));
const cardsDir = path.join(photosDir, 'cards');
const fixtures = fs.readdirSync(cardsDir).filter((f) => f.endsWith('.jpg')).sort();

describe('card detector on real photos', () => {
  it.each(fixtures.filter((f) => f.startsWith('single-')))('finds the card in %s with its corners within 2 % of its width', async (name) => {
    const { cards, scale } = await detect(`cards/${name}`);
    const truth = labelOf(name.replace(/^single-/, ''));
    expect(cards.length).toBeGreaterThanOrEqual(1);
    expect(worstCorner(cards[0]!.quad, scale, truth.cards[0]!.corners)).toBeLessThan(0.02);
    expect(cards[0]!.prob).toBeGreaterThan(0.6);
    // the corner refiner is sure of a card it has placed, and the verifier has looked at it
    expect(Math.max(...cards[0]!.spread)).toBeLessThan(0.05);
    expect(cards[0]!.verified).toEqual(expect.any(Number));
  });

  it('finds a close-up whose card map runs into the table (a weak card the verifier keeps)', async () => {
    const name = fixtures.find((f) => f.startsWith('weak-'))!;
    const truth = trainLabelOf(name);
    const { cards, scale } = await detect(`cards/${name}`);
    expect(cards.length).toBe(1);
    expect(worstCorner(cards[0]!.quad, scale, truth.cards[0]!.corners)).toBeLessThan(0.01);
    expect(cards[0]!.verified).toEqual(expect.any(Number));
  });

  it("keeps issue 17's first way of placing corners (edge fit or outline search) for the bench's comparison", async () => {
    const name = fixtures.find((f) => f.startsWith('single-'))!;
    const img = await decodeCardPhoto(photoBytes(`cards/${name}`), 100e6);
    const cards = await detector.detect({ data: img.data, width: img.width, height: img.height }, 'search');
    // Only that the path still finds this card: its accuracy is the bench's column. Since the first
    // stage was retrained on the hand labels (2026-11-24) its outline here is 5 % off, against
    // under 2 % before; the shipped refiner places it within 2 % (the test above).
    expect(worstCorner(cards[0]!.quad, [img.originalWidth / img.width, img.originalHeight / img.height], labelOf(name.replace(/^single-/, '')).cards[0]!.corners)).toBeLessThan(0.08);
    // the first version had no verifier
    expect(cards[0]!.verified).toBeUndefined();
  });

  it('finds no card in photos without one: a booster pack, and all but one of the 19 Caltech-101 photos', async () => {
    for (const f of fixtures.filter((f) => f.startsWith('none-'))) expect((await detect(`cards/${f}`)).cards, f).toEqual([]);
    // On all 450 Caltech photos the detector sees a card in 3 (0.7 %; npm run bench -- card-detector).
    const seen: string[] = [];
    for (const rel of caltechPhotos()) if ((await detect(rel)).cards.length) seen.push(rel);
    expect(seen.length, seen.join(', ')).toBeLessThanOrEqual(1);
  });

  it('finds each card of a multi-card photo, largest first', async () => {
    const name = fixtures.find((f) => f.startsWith('multi-'))!;
    const { cards } = await detect(`cards/${name}`);
    const truth = labelOf(name.replace(/^multi-/, ''));
    expect(cards.length).toBeGreaterThanOrEqual(Math.min(2, truth.cards.length));
    const areas = cards.map((c) => area(c.quad));
    expect(areas).toEqual([...areas].sort((a, b) => b - a));
  });

  it('looks at tiles of a binder page: most of its 18 small cards, each once', async () => {
    const name = fixtures.find((f) => f.startsWith('tiles-'))!;
    const truth = trainLabelOf(name);
    const { cards, scale } = await detect(`cards/${name}`);
    const centre = (q: readonly Point[]): Point => [q.reduce((a, p) => a + p[0], 0) / 4, q.reduce((a, p) => a + p[1], 0) / 4];
    const matched = new Set<number>();
    let unmatched = 0;
    for (const c of cards) {
      const [x, y] = centre(c.quad.map(([px, py]) => [(px + 0.5) * scale[0] - 0.5, (py + 0.5) * scale[1] - 0.5] as Point));
      const k = truth.cards.findIndex((t, i) => !matched.has(i) && Math.hypot(centre(t.corners)[0] - x, centre(t.corners)[1] - y) < 0.25 * Math.min(...sideLengths(t.corners)));
      if (k >= 0) matched.add(k);
      else unmatched++;
    }
    // the whole photo alone gives 5 of the 18 (2026-11-25); the models shipped later that day find
    // 12 with 2 outlines on no labelled card (the first models: 12 and 1), the first stage S3
    // (2026-11-25, sixth session) 10 with 4 on no labelled card: two of these sideways cards one
    // above the other are card-shaped (63:88), and three such pairs are taken for one card each
    expect(matched.size).toBeGreaterThanOrEqual(10);
    expect(unmatched).toBeLessThanOrEqual(4);
  });

  it('says which cards are in a holder: a card in a rigid holder, and bare single cards', async () => {
    const { cards } = await detect('cards/held-1730718170_jpg.rf.167d50557e4430b542c58f6c23ef836c.jpg');
    expect(cards[0]?.kind).toBe('holder');
    expect(cards[0]?.held).toBeGreaterThanOrEqual(0.5);
    for (const f of fixtures.filter((f) => f.startsWith('single-'))) expect((await detect(`cards/${f}`)).cards[0]?.kind, f).toBe('raw');
  });

  it('finds the card inside a graded slab, not the slab', async () => {
    const { cards, scale } = await detect('cards/slab-counterspell_bgs.jpg');
    const truth = labelOf('counterspell_bgs.jpg').cards[0]!;
    expect(cards.length).toBeGreaterThanOrEqual(1);
    const found = cards[0]!.quad.map(([x, y]) => [(x + 0.5) * scale[0] - 0.5, (y + 0.5) * scale[1] - 0.5] as [number, number]);
    // The slab is about twice the card's area: an outline within a quarter of the card's area
    // and centred on it is the card, not the slab or its label.
    expect(Math.abs(area(found) / area(truth.corners) - 1)).toBeLessThan(0.25);
    const c = (q: readonly (readonly number[])[]) => [q.reduce((s, p) => s + p[0]!, 0) / 4, q.reduce((s, p) => s + p[1]!, 0) / 4];
    const [fx, fy] = c(found);
    const [tx, ty] = c(truth.corners);
    expect(Math.hypot(fx! - tx!, fy! - ty!) / Math.sqrt(area(truth.corners))).toBeLessThan(0.05);
  });

  it('gives the same answer every time', async () => {
    const name = fixtures.find((f) => f.startsWith('single-'))!;
    const a = await detect(`cards/${name}`);
    const b = await detect(`cards/${name}`);
    expect(b).toEqual(a);
  });
});

describe('the second look, from the corner map', () => {
  it('finds a full-art card in front of a booster box that the card map runs past (a train photo, labelled in train-corners.json)', async () => {
    const name = fixtures.find((f) => f.startsWith('look-'))!;
    const truth = trainLabelOf(name).cards[0]!.corners;
    const { cards, scale } = await detect(`cards/${name}`);
    expect(cards).toHaveLength(1);
    // a card 160 px wide whose edges the label places to 1.5-2 px (low contrast): 3 % is 5 px
    expect(worstCorner(cards[0]!.quad, scale, truth)).toBeLessThan(0.03);
    // a card neither map nor refiner vouched for is kept only at the verifier's second-look threshold
    expect(cards[0]!.verified).toBeGreaterThanOrEqual(0.998);
    // the card map alone gives no card here; recognition's detection (the second look; the few-card tiles only where nothing is found) finds it
    const img = await decodeCardPhoto(photoBytes(`cards/${name}`), 100e6);
    const pixels = { data: img.data, width: img.width, height: img.height };
    expect(await detector.detect(pixels, 'refine', { secondLook: false })).toEqual([]);
    const read = await detector.detect(pixels, 'refine', { secondLook: true, fewTiles: 'when-none' });
    expect(read).toHaveLength(1);
    expect(read[0]!.quad).toEqual(cards[0]!.quad);
  });
});

describe('outlines from the centre map', () => {
  it('finds the cards of a small five-card binder photo whose card map runs them together (a train photo, labelled in train-corners.json)', async () => {
    const name = fixtures.find((f) => f.startsWith('centre-'))!;
    const truth = trainLabelOf(name).cards;
    const { cards, scale } = await detect(`cards/${name}`);
    // found as the bench counts a card on a multi-card photo: its centre within a quarter of the
    // card's width of the label's, its width within a quarter (cards 56 px wide: corners are rough)
    const mid = (q: readonly Point[]): Point => [q.reduce((a, p) => a + p[0], 0) / 4, q.reduce((a, p) => a + p[1], 0) / 4];
    const width = (q: readonly Point[]) => Math.min(Math.hypot(q[1]![0] - q[0]![0], q[1]![1] - q[0]![1]), Math.hypot(q[3]![0] - q[0]![0], q[3]![1] - q[0]![1]));
    const inPhoto = (q: Quad) => q.map(([x, y]) => [(x + 0.5) * scale[0] - 0.5, (y + 0.5) * scale[1] - 0.5] as Point);
    const found = (t: Quad) =>
      cards.some((c) => {
        const q = inPhoto(c.quad);
        return Math.hypot(mid(q)[0] - mid(t)[0], mid(q)[1] - mid(t)[1]) < 0.25 * width(t) && Math.abs(width(q) / width(t) - 1) < 0.25;
      });
    expect(truth.filter((t) => found(t.corners)).length).toBe(5);
    // the centre outlines alone (as recognition reads) find them too; without them and the looks of a photo with few cards, one
    const img = await decodeCardPhoto(photoBytes(`cards/${name}`), 100e6);
    const pixels = { data: img.data, width: img.width, height: img.height };
    expect((await detector.detect(pixels, 'refine', { secondLook: false })).length).toBeGreaterThanOrEqual(5);
    expect(await detector.detect(pixels, 'refine', { centres: false, secondLook: false })).toHaveLength(1);
  });
});

describe('tiles of a photo with few cards found', () => {
  // the labelled boxes of a webcam still (real_card_photos, brunodf05 train split, its manifest)
  const boxes = [[86.5, 45.5, 143.5, 120.5], [169.25, 223.75, 230.75, 306.25], [169.5, 299.5, 214.5, 339.5], [127.5, 449, 188.5, 512], [87.75, 468, 128.25, 512], [271.25, 230.75, 332.75, 308.25], [332.75, 230.75, 343.25, 310.25], [342.25, 230.25, 353.75, 310.75], [353.5, 230, 364.5, 312], [320, 94.5, 366, 206.5], [306.5, 69.5, 347.5, 174.5], [358.75, 0, 419.25, 30], [366.75, 398, 423.25, 475]];
  const iou = (a: number[], b: number[]) => {
    const i = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!)) * Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
    return i / ((a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - i);
  };
  it('finds the small cards of a game still whose whole photo gives one, each on a labelled card', async () => {
    const name = fixtures.find((f) => f.startsWith('few-'))!;
    const { cards } = await detect(`cards/${name}`);
    expect(cards.length).toBeGreaterThanOrEqual(3);
    for (const c of cards) {
      const xs = c.quad.map((p) => p[0]);
      const ys = c.quad.map((p) => p[1]);
      expect(Math.max(...boxes.map((b) => iou([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)], b)))).toBeGreaterThan(0.5);
    }
    // recognition's detection (the second look; the few-card tiles only where nothing is found) tiles a photo with one card no further
    const img = await decodeCardPhoto(photoBytes(`cards/${name}`), 100e6);
    const pixels = { data: img.data, width: img.width, height: img.height };
    expect(await detector.detect(pixels, 'refine', { secondLook: false })).toHaveLength(1);
    expect(await detector.detect(pixels, 'refine', { secondLook: true, fewTiles: 'when-none' })).toHaveLength(1);
  });
});

describe('restarts of an outline off the card\'s shape', () => {
  it('places a real card again whose first outline ran onto the table (a train photo, labelled in train-corners.json)', async () => {
    const name = fixtures.find((f) => f.startsWith('restart-'))!;
    const truth = trainLabelOf(name).cards[0]!.corners;
    const { cards, scale } = await detect(`cards/${name}`);
    // the first outline's worst corner was 15 % of the width off; placed again, within 1 %
    expect(worstCorner(cards[0]!.quad, scale, truth)).toBeLessThan(0.015);
  });

  // a card 630 x 880 px whose outline ran 240 px past its lower side, onto the table
  const card: Quad = [[100, 50], [730, 50], [730, 930], [100, 930]];
  const ranOn: Quad = [[100, 50], [730, 50], [730, 1170], [100, 1170]];
  const near = (a: Quad, b: Quad) => Math.max(...a.map((p, k) => Math.hypot(p[0] - b[k]![0], p[1] - b[k]![1])));

  it('places a card-shaped outline from each side it cannot have run past, one of them the card', () => {
    const starts = cardShapedFromEachSide(ranOn);
    expect(starts).toHaveLength(2);
    for (const q of starts) {
      const [across, along] = sideLengths(q);
      expect(Math.min(across, along) / Math.max(across, along)).toBeCloseTo(63 / 88, 3);
    }
    // the upper side kept: the lower one placed where a card as wide ends
    expect(near(starts[0]!, card)).toBeLessThan(0.01);
    // the lower side kept: the card placed on the table, above it
    expect(starts[1]![0][1]).toBeCloseTo(1170 - 880, 6);
  });

  it('keeps the corners in the outline\'s order, also for a turned card', () => {
    const turn = (p: Point): Point => [p[0] * Math.cos(0.3) - p[1] * Math.sin(0.3), p[0] * Math.sin(0.3) + p[1] * Math.cos(0.3)];
    const starts = cardShapedFromEachSide(ranOn.map(turn) as Quad);
    expect(near(starts[0]!, card.map(turn) as Quad)).toBeLessThan(0.01);
    // a landscape outline (the card lying sideways): the short side is across it
    const sideways: Quad = [[0, 0], [1170, 0], [1170, 630], [0, 630]];
    expect(near(cardShapedFromEachSide(sideways)[0]!, [[290, 0], [1170, 0], [1170, 630], [290, 630]])).toBeLessThan(0.01);
  });

  it('keeps the long sides of an outline too square for a card', () => {
    // a card 630 x 880 px whose outline ran 250 px past one of its long sides
    const wide: Quad = [[0, 0], [880, 0], [880, 880], [0, 880]];
    const starts = cardShapedFromEachSide(wide);
    expect(starts).toHaveLength(2);
    expect(near(starts[0]!, [[250, 0], [880, 0], [880, 880], [250, 880]])).toBeLessThan(0.01);
    expect(near(starts[1]!, [[0, 0], [630, 0], [630, 880], [0, 880]])).toBeLessThan(0.01);
  });
});

const sv151 = path.resolve(import.meta.dirname, '../../../../shared/datasets/pokemon_sv151_reference/images');
describe.skipIf(!fs.existsSync(sv151))('card detector on an official scan turned on its side (shared data)', () => {
  it('finds the whole card where the photo turned a quarter gave none upright (h95: a flatbed scan on its side was "no card")', async () => {
    const { default: sharp } = await import('sharp');
    for (const [file, angle] of [['001_Bulbasaur.jpg', 90], ['001_Bulbasaur.jpg', 270], ['007_Squirtle.jpg', 270]] as const) {
      const bytes = await sharp(fs.readFileSync(path.join(sv151, file))).rotate(angle).jpeg().toBuffer();
      const img = await decodeCardPhoto(bytes, 100e6);
      const cards = await detector.detect({ data: img.data, width: img.width, height: img.height });
      expect(cards.length, `${file} ${angle}`).toBe(1);
      // the card fills the scan: its outline is the image's frame, turned back into the photo's own pixels
      const [w, h] = sideLengths(cards[0]!.quad).sort((a, b) => b - a);
      expect(w! / Math.max(img.width, img.height), `${file} ${angle}`).toBeGreaterThan(0.95);
      expect(h! / Math.min(img.width, img.height), `${file} ${angle}`).toBeGreaterThan(0.95);
      expect(cards[0]!.verified).toBeGreaterThanOrEqual(0.998);
    }
  }, 60_000);
});
