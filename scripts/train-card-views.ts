/**
 * The labelled train-split photos of catalog cards (test/fixtures/recognition/real-identities.json),
 * each card as recognition's read finds it (no second look) warped upright at 500 px: what the
 * border and layout dev scripts measure on. Never the validation photos (the bench's).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { CardDetector } from '../src/vision/cards/card-detector.ts';
import { decodeCardPhoto } from '../src/vision/cards/card-tasks.ts';
import { loadCv, warpCard } from '../src/vision/cards/card-geometry.ts';
import { portrait } from '../src/vision/cards/card-verifier.ts';

export interface TrainPhoto { file: string; split: string | null; width: number; set?: string; catalog_id: string | null }

/**
 * Each train photo whose catalog id `inCatalog` knows, with its upright card, or null where no card
 * was found. `shrink`: photos at least 600 px wide shrunk to that width (JPEG quality 80), as
 * recognition-dev.ts does.
 */
export async function* trainCardViews(datasets: string, inCatalog: (id: string) => boolean, shrink = 0): AsyncGenerator<{ photo: TrainPhoto & { catalog_id: string }; upright: ReturnType<typeof warpCard> | null }> {
  const photos = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: TrainPhoto[] }).photos;
  const det = await CardDetector.load(1);
  const { cv } = await loadCv();
  for (const p of photos) {
    if (p.split !== 'train' || p.set === 'slab' || p.catalog_id === null || !inCatalog(p.catalog_id)) continue;
    let bytes: Buffer = fs.readFileSync(path.join(datasets, p.file));
    if (shrink && p.width >= 600) bytes = await sharp(bytes).rotate().resize({ width: shrink }).jpeg({ quality: 80 }).toBuffer();
    const img = await decodeCardPhoto(bytes, 50_000_000);
    const [found] = await det.detect({ data: img.data, width: img.width, height: img.height }, 'refine', { secondLook: false });
    yield { photo: { ...p, catalog_id: p.catalog_id }, upright: found ? warpCard(cv, img, portrait(found.quad), 500) : null };
  }
}
