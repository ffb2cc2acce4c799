/**
 * The border colour measured on the labelled train-split photos against the colour the printing's
 * series, rarity and subtypes give (docs/recognition.md "Border colour"): what the thresholds of
 * card-border.ts and the rule of pokemon-borders.ts were set and checked on. Never the validation
 * photos (the bench's).
 *
 *   npx tsx scripts/card-border-dev.ts
 *
 * Env: SHRINK=400 for the photos at least 600 px wide shrunk to that width (JPEG quality 80), as
 * recognition-dev.ts does: the card then about 200 px wide, as on the listing photos.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { CardDetector } from '../src/vision/cards/card-detector.ts';
import { decodeCardPhoto } from '../src/vision/cards/card-tasks.ts';
import { loadCv, warpCard } from '../src/vision/cards/card-geometry.ts';
import { portrait } from '../src/vision/cards/card-verifier.ts';
import { borderLook } from '../src/vision/recognition/card-border.ts';
import { pokemonBorder } from '../src/catalog/pokemon-borders.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
interface PokemonCard { id: string; rarity?: string; number: string; subtypes?: string[]; set: string }
const cards = new Map((JSON.parse(fs.readFileSync(path.join(shared, 'catalogs/pokemon/cards.json'), 'utf8')) as PokemonCard[]).map((c) => [c.id, c]));
const series = new Map((JSON.parse(fs.readFileSync(path.join(shared, 'catalogs/pokemon/sets.json'), 'utf8')) as { id: string; series: string }[]).map((s) => [s.id, s.series]));
interface Photo { file: string; split: string | null; width: number; set?: string; catalog_id: string | null }
const photos = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Photo[] }).photos.filter(
  (p) => p.split === 'train' && p.set !== 'slab' && p.catalog_id !== null && cards.has(p.catalog_id),
);
const shrink = Number(process.env.SHRINK ?? 0);
const det = await CardDetector.load(1);
const { cv } = await loadCv();
const tally = new Map<string, number>();
let noCard = 0;
for (const p of photos) {
  let bytes: Buffer = fs.readFileSync(path.join(datasets, p.file));
  if (shrink && p.width >= 600) bytes = await sharp(bytes).rotate().resize({ width: shrink }).jpeg({ quality: 80 }).toBuffer();
  const img = await decodeCardPhoto(bytes, 50_000_000);
  const [found] = await det.detect({ data: img.data, width: img.width, height: img.height }, 'refine', { secondLook: false }); // as recognition's read
  if (!found) {
    noCard++;
    continue;
  }
  const look = borderLook(warpCard(cv, img, portrait(found.quad), 500));
  const card = cards.get(p.catalog_id!)!;
  const expected = pokemonBorder({ rarity: card.rarity ?? null, number: card.number, subtypes: card.subtypes ?? [] }, series.get(card.set) ?? null);
  const key = `expected ${expected ?? 'unknown'}, measured ${look?.colour ?? 'nothing'}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  const flag = expected && look?.colour && expected !== look.colour ? 'DISAGREE' : '';
  console.log([flag.padEnd(8), card.id.padEnd(18), `${(card.rarity ?? '-').padEnd(26)}`, `L*a*b* ${look?.lab.join(' ') ?? '-'}`.padEnd(24), key].join(' '));
}
console.log(`\n${photos.length} photos${shrink ? ` (shrunk to ${shrink} px)` : ''}, no card found on ${noCard}:`);
for (const [k, n] of [...tally].sort()) console.log(`  ${k}: ${n}`);
