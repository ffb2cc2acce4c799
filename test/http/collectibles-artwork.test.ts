import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/container.ts';
import { MAX_MATCH_DISTANCE } from '../../src/services/recognition/recognition-service.ts';
import { seededRandom } from '../../src/util/seeded-random.ts';
import { makeScene } from '../helpers/card-scenes.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { photoBase64 } from '../helpers/photos.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

/**
 * Identification by artwork (docs/recognition.md "Artwork"): made-up cards whose text says
 * nothing a catalog could match (no collector line, a name no card has), their scans attached as
 * references with `attachImages`, then photographed in a scene: the card is told by its art.
 */

/** A card of its own art: shapes and colours drawn from the seed, a name bar that names no catalog card. */
async function artCard(seed: number): Promise<Buffer> {
  const rand = seededRandom(seed);
  const shapes: string[] = [];
  for (let i = 0; i < 9; i++) {
    const [x, y, s] = [60 + rand() * 450, 110 + rand() * 300, 40 + rand() * 140];
    const fill = `hsl(${Math.floor(rand() * 360)},${40 + Math.floor(rand() * 50)}%,${25 + Math.floor(rand() * 55)}%)`;
    shapes.push(rand() < 0.5 ? `<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${fill}"/>` : `<rect x="${x - s / 2}" y="${y - s / 3}" width="${s}" height="${(s * 2) / 3}" fill="${fill}"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="630" height="880">
    <rect width="630" height="880" fill="rgb(238,204,56)"/>
    <rect x="28" y="28" width="574" height="824" fill="#f2efe6"/>
    <rect x="50" y="92" width="530" height="350" fill="hsl(${Math.floor(rand() * 360)},30%,70%)"/>
    ${shapes.join('')}
    <rect x="50" y="470" width="530" height="330" fill="#e8e2d0"/>
    <text x="60" y="70" font-size="34" font-family="sans-serif" fill="#222">Zyx ${seed}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The card photographed: warped onto a plain table with a little tilt, light and noise. */
async function photographed(face: Buffer, seed: number): Promise<string> {
  const scene = await makeScene({ width: 630, height: 880, margins: [0, 0, 0, 0], border: [0, 0, 0], face }, seed, { width: 1200, height: 1200, size: 0.8, rotationDeg: 4, perspective: 0.02, light: 0.2, noise: 4 });
  return (await sharp(Buffer.from(scene.image.data), { raw: { width: scene.image.width, height: scene.image.height, channels: 3 } }).jpeg({ quality: 88 }).toBuffer()).toString('base64');
}

const cards = [1, 2, 3, 4].map((i) => ({ id: `art-${i}`, name: `Artmon ${i}`, number: String(i), set: 'art', rarity: 'Common', supertype: 'Pokémon', subtypes: ['Basic'], hp: '60', types: ['Water'] }));
const sets = [{ id: 'art', name: 'Art Test', series: 'Testing', printedTotal: 4, total: 4, releaseDate: '2024/01/01', ptcgoCode: 'ART' }];

describe.each(backends)('collectibles recognition by artwork (%s)', (backend) => {
  let h: Harness;
  let dir: string;
  let services: Services;
  const faces = new Map<number, Buffer>();
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    await h.app.ready();
    // the same scans are attached again and again (named by key, by number, by name, replaced and put back) and every
    // scan and photo read once more for the second backend: test/helpers/vision-memo.ts
    rememberVision(h);
    services = h.app.loupe as unknown as Services;
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-art-'));
    await fs.mkdir(path.join(dir, 'refs'));
    await fs.writeFile(path.join(dir, 'cards.json'), JSON.stringify(cards));
    await fs.writeFile(path.join(dir, 'sets.json'), JSON.stringify(sets));
    await services.catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    for (const seed of [11, 12, 13, 14, 15]) faces.set(seed, await artCard(seed));
    // references of cards 1–3, named by key; card 4 has none; seed 15 is a card no catalog holds
    for (const [i, seed] of [[1, 11], [2, 12], [3, 13]] as const) await fs.writeFile(path.join(dir, 'refs', `art-${i}.png`), faces.get(seed)!);
    await fs.writeFile(path.join(dir, 'refs', 'notes.txt'), 'not an image');
    await fs.writeFile(path.join(dir, 'refs', 'art-99.png'), faces.get(14)!);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('attaches reference scans by key, lists files naming no card, and changes nothing when run again', async () => {
    const first = await services.catalogs.attachImages({ catalog: 'pokemon', dir: path.join(dir, 'refs'), match: 'id' });
    expect(first).toMatchObject({ catalog: 'pokemon', files: 4, attached: 3, created: 3, updated: 0, unchanged: 0, images: 3 });
    expect(first.unmatched).toEqual([{ file: 'art-99.png', reason: 'no card of pokemon has the id "art-99"' }]);
    const again = await services.catalogs.attachImages({ catalog: 'pokemon', dir: path.join(dir, 'refs'), match: 'id' });
    expect(again).toMatchObject({ attached: 3, created: 0, updated: 0, unchanged: 3, images: 3 });
    expect((await services.catalogs.list()).catalogs[0]).toMatchObject({ catalog: 'pokemon', images: 3 });
    // a scan replaced under the same name is taken (every file's bytes hashed as emptied before: "unchanged" for ever)
    const replaced = path.join(dir, 'replaced');
    await fs.mkdir(replaced);
    await fs.writeFile(path.join(replaced, 'art-1.png'), faces.get(15)!);
    expect(await services.catalogs.attachImages({ catalog: 'pokemon', dir: replaced, match: 'id' })).toMatchObject({ attached: 1, updated: 1, unchanged: 0 });
    await fs.writeFile(path.join(replaced, 'art-1.png'), faces.get(11)!);
    expect(await services.catalogs.attachImages({ catalog: 'pokemon', dir: replaced, match: 'id' })).toMatchObject({ attached: 1, updated: 1 });
    // a card-shaped photo of something else is no reference
    const wrong = path.join(dir, 'wrong-folder');
    await fs.mkdir(wrong);
    const leopard = await sharp(Buffer.from(photoBase64('caltech101/Leopards/image_0001.jpg'), 'base64')).resize(630, 880, { fit: 'cover' }).jpeg().toBuffer();
    await fs.writeFile(path.join(wrong, 'art-4.jpg'), leopard);
    const refused = await services.catalogs.attachImages({ catalog: 'pokemon', dir: wrong, match: 'id' });
    expect(refused).toMatchObject({ attached: 0, created: 0 });
    expect(refused.unmatched).toEqual([{ file: 'art-4.jpg', reason: expect.stringMatching(/does not look like a card/) }]);
  });

  it('matches files by collector number or by name, and never picks one of several cards', async () => {
    const byNumber = path.join(dir, 'by-number');
    await fs.mkdir(byNumber);
    await fs.writeFile(path.join(byNumber, '004_anything.png'), faces.get(14)!);
    await fs.writeFile(path.join(byNumber, '007_nothing.png'), faces.get(14)!);
    const n = await services.catalogs.attachImages({ catalog: 'pokemon', dir: byNumber, match: 'number', setCode: 'art' });
    expect(n).toMatchObject({ attached: 1, created: 1, images: 4 });
    expect(n.unmatched).toEqual([{ file: '007_nothing.png', reason: 'no card of pokemon has the number "007" in set art' }]);
    const byName = path.join(dir, 'by-name');
    await fs.mkdir(byName);
    await fs.writeFile(path.join(byName, 'Artmon 2.png'), faces.get(12)!);
    // a second file naming the same card: the first kept, the second listed
    await fs.writeFile(path.join(byName, '002_Artmon 2.png'), faces.get(11)!);
    const named = await services.catalogs.attachImages({ catalog: 'pokemon', dir: byName, match: 'name' });
    expect(named).toMatchObject({ attached: 1, unchanged: 0, updated: 1 });
    expect(named.unmatched).toEqual([{ file: 'Artmon 2.png', reason: 'art-2 already has a reference in this folder: 002_Artmon 2.png' }]);
    await expect(services.catalogs.attachImages({ catalog: 'nope', dir: byName, match: 'name' })).rejects.toMatchObject({ status: 404 });
    await expect(services.catalogs.attachImages({ catalog: 'pokemon', dir: path.join(dir, 'missing'), match: 'id' })).rejects.toMatchObject({ status: 400 });
    // a set the catalog does not hold is a mistake, not a filter that quietly matches nothing (or is passed over by --match id)
    await expect(services.catalogs.attachImages({ catalog: 'pokemon', dir: byName, match: 'id', setCode: 'nosuchset' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('"nosuchset"') });
  });

  it('identifies a photographed card by its artwork when its text names nothing, and gives no match for a card with no reference', async () => {
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _id: 'a', _base64: await photographed(faces.get(13)!, 5) }, { _id: 'b', _base64: await photographed(faces.get(15)!, 6) }] } });
    expect(res.statusCode).toBe(200);
    const [a, b] = (res.json() as { records: { _status: { code: number }; _objects: { _identification: { best_match: { id: string } | null; distances: number[] } }[] }[] }).records;
    expect(a!._status.code).toBe(200);
    expect(a!._objects[0]!._identification.best_match).toMatchObject({ id: 'art-3', name: 'Artmon 3' });
    expect(a!._objects[0]!._identification.distances[0]).toBeLessThanOrEqual(MAX_MATCH_DISTANCE);
    expect(b!._status.code).toBe(200);
    expect(b!._objects[0]!._identification.best_match).toBeNull();
  }, 120_000);
});
