/**
 * Centering against the card's design, on the train split's real photos of single catalog cards
 * (test/fixtures/recognition/real-identities.json, never the validation ones): a full-art printing
 * (src/catalog/pokemon-layouts.ts: illustration, special illustration, ultra, hyper rares…) has no
 * plain printed border, so centering should say it cannot measure one; a regular printing's border
 * should be measured. Issue 17: "where the design has no measurable border, say so in the record".
 *
 *   npx tsx scripts/centering-design-dev.ts        (MIN_WIDTH=600 by default: the photo's width)
 *
 * Prints each photo's layout (full / framed / other: V, VMAX, ex, promos, gallery cards), the outcome,
 * and a table of the counts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pokemonLayout } from '../src/catalog/pokemon-layouts.ts';
import { runCardTask } from '../src/vision/cards/card-tasks.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const catalogs = path.resolve(import.meta.dirname, '../../shared/catalogs');
interface Identity { file: string; split: string; set?: string; width: number; in_catalog: boolean; catalog_id: string | null }
const cards = new Map((JSON.parse(fs.readFileSync(path.join(catalogs, 'pokemon/cards.json'), 'utf8')) as { id: string; name: string; rarity?: string; number?: string; subtypes?: string[] }[]).map((c) => [c.id, c]));
const photos = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Identity[] }).photos.filter(
  (p) => p.split === 'train' && p.set !== 'slab' && p.in_catalog && p.catalog_id && p.width >= Number(process.env.MIN_WIDTH ?? 600),
);
const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const tally = new Map<string, { measured: number; unmeasurable: number; noCard: number }>();
for (const p of photos) {
  const card = cards.get(p.catalog_id!);
  if (!card) continue;
  const layout = pokemonLayout({ rarity: card.rarity ?? null, number: card.number ?? null }) ?? 'other';
  const bytes = fs.readFileSync(path.join(datasets, p.file));
  const r = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'centering', options: { noImageOutput: true } });
  const t = tally.get(layout) ?? { measured: 0, unmeasurable: 0, noCard: 0 };
  tally.set(layout, t);
  let outcome: string;
  if ('refused' in r || !r.found) {
    t.noCard++;
    outcome = 'no card';
  } else if (r.centering) {
    t.measured++;
    outcome = `measured ${r.centering.leftRight} ${r.centering.topBottom} (grade ${r.centering.grade})`;
  } else {
    t.unmeasurable++;
    outcome = `unmeasurable: ${r.centeringUnmeasurable ?? '?'}`;
  }
  console.log(`${path.basename(p.file).slice(0, 24)} ${card.id} ${card.name} [${card.rarity ?? '-'}] ${layout}: ${outcome}`);
}
console.log('\n| design (catalog rarity) | photos | centering measured | no border said | no card |');
console.log('|---|---|---|---|---|');
for (const [layout, t] of [...tally].sort()) console.log(`| ${layout} | ${t.measured + t.unmeasurable + t.noCard} | ${t.measured} | ${t.unmeasurable} | ${t.noCard} |`);
