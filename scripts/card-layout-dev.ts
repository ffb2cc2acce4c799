/**
 * The text box's plainness measured on upright cards against the layout the printing's rarity gives
 * (docs/recognition.md "Full art"): what the thresholds of card-layout.ts and the rule of
 * pokemon-layouts.ts are set and checked on. The SV151 reference scans (official, flat: also shrunk
 * to a listing photo's 200 px) and the labelled train-split photos; never the validation photos.
 *
 *   npx tsx scripts/card-layout-dev.ts            # both
 *   SET=scans|train npx tsx scripts/card-layout-dev.ts
 *
 * Env: SHRINK=400 for the train photos at least 600 px wide shrunk to that width (JPEG quality 80),
 * as recognition-dev.ts does.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { layoutLook } from '../src/vision/recognition/card-layout.ts';
import { pokemonLayout } from '../src/catalog/pokemon-layouts.ts';
import { trainCardViews } from './train-card-views.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
interface PokemonCard { id: string; rarity?: string; number: string; subtypes?: string[]; supertype?: string; set: string }
const cards = new Map((JSON.parse(fs.readFileSync(path.join(shared, 'catalogs/pokemon/cards.json'), 'utf8')) as PokemonCard[]).map((c) => [c.id, c]));
const set = process.env.SET ?? 'both';
const shrink = Number(process.env.SHRINK ?? 0);
const tally = new Map<string, number>();

function report(card: PokemonCard, look: ReturnType<typeof layoutLook>, tag: string): void {
  const expected = pokemonLayout({ rarity: card.rarity ?? null, number: card.number });
  const key = `${tag}: expected ${expected ?? 'unknown'}, measured ${look?.layout ?? 'nothing'}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  const flag = expected && look?.layout && expected !== look.layout ? 'DISAGREE' : '';
  console.log([flag.padEnd(8), tag.padEnd(6), card.id.padEnd(18), `${(card.rarity ?? '-').padEnd(26)}`, `plain ${look?.plain.toFixed(2) ?? '-'}`.padEnd(12), `expected ${expected ?? 'unknown'}`].join(' '));
}

async function rgbOf(bytes: Buffer, width: number) {
  const { data, info } = await sharp(bytes).removeAlpha().resize({ width, height: Math.round((width * 88) / 63), fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

if (set === 'both' || set === 'scans') {
  const dir = path.join(datasets, 'pokemon_sv151_reference/images');
  for (const f of fs.readdirSync(dir).sort()) {
    const card = cards.get(`sv3pt5-${Number(f.slice(0, 3))}`);
    if (!card) continue;
    const bytes = fs.readFileSync(path.join(dir, f));
    report(card, layoutLook(await rgbOf(bytes, 500)), 'scan');
    const small = await sharp(bytes).resize({ width: 200 }).jpeg({ quality: 80 }).toBuffer();
    report(card, layoutLook(await rgbOf(small, 500)), 'scan200');
  }
}

if (set === 'both' || set === 'train') {
  let noCard = 0;
  for await (const { photo: p, upright } of trainCardViews(datasets, (id) => cards.has(id), shrink)) {
    if (!upright) {
      noCard++;
      continue;
    }
    report(cards.get(p.catalog_id)!, layoutLook(upright), 'train');
    if (process.env.DUMP) {
      fs.mkdirSync(process.env.DUMP, { recursive: true });
      await sharp(Buffer.from(upright.data), { raw: { width: upright.width, height: upright.height, channels: 3 } }).jpeg().toFile(path.join(process.env.DUMP, `${p.catalog_id}.jpg`));
    }
  }
  console.log(`train: no card found on ${noCard}`);
}
console.log('');
for (const [k, n] of [...tally].sort()) console.log(`  ${k}: ${n}`);
