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
import { borderLook } from '../src/vision/recognition/card-border.ts';
import { pokemonBorder } from '../src/catalog/pokemon-borders.ts';
import { trainCardViews } from './train-card-views.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
interface PokemonCard { id: string; rarity?: string; number: string; subtypes?: string[]; set: string }
const cards = new Map((JSON.parse(fs.readFileSync(path.join(shared, 'catalogs/pokemon/cards.json'), 'utf8')) as PokemonCard[]).map((c) => [c.id, c]));
const series = new Map((JSON.parse(fs.readFileSync(path.join(shared, 'catalogs/pokemon/sets.json'), 'utf8')) as { id: string; series: string }[]).map((s) => [s.id, s.series]));
const shrink = Number(process.env.SHRINK ?? 0);
const tally = new Map<string, number>();
let photos = 0;
let noCard = 0;
for await (const { photo: p, upright } of trainCardViews(datasets, (id) => cards.has(id), shrink)) {
  photos++;
  if (!upright) {
    noCard++;
    continue;
  }
  const look = borderLook(upright);
  const card = cards.get(p.catalog_id)!;
  const expected = pokemonBorder({ rarity: card.rarity ?? null, number: card.number, subtypes: card.subtypes ?? [] }, series.get(card.set) ?? null);
  const key = `expected ${expected ?? 'unknown'}, measured ${look?.colour ?? 'nothing'}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  const flag = expected && look?.colour && expected !== look.colour ? 'DISAGREE' : '';
  console.log([flag.padEnd(8), card.id.padEnd(18), `${(card.rarity ?? '-').padEnd(26)}`, `L*a*b* ${look?.lab.join(' ') ?? '-'}`.padEnd(24), key].join(' '));
}
console.log(`\n${photos} photos${shrink ? ` (shrunk to ${shrink} px)` : ''}, no card found on ${noCard}:`);
for (const [k, n] of [...tally].sort()) console.log(`  ${k}: ${n}`);
