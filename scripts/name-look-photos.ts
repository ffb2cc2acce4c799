/**
 * Every look at the lexicon (ctc-spotting.ts) that reading the train split's photos makes, and every
 * line read: the card reading task as recognition runs it (`runCardTask`, `read`, the species names
 * looked for), on the train photos as taken and shrunk (`SHRINK`, as scripts/recognition-dev.ts
 * shrinks them: the photos 600 px wide or more, JPEG quality 80), without the server or the catalogs.
 * A change to the look that should change nothing is run before and after and the outputs diffed:
 * each photo's lines as read (with the word a look put in) and each look's full result as the lexicon's
 * `accepts` saw it (word, cost, dearest step, span, score, margin), numbers as JSON writes them.
 *
 *   node --import tsx scripts/name-look-photos.ts > before.txt     # SHRINK=0,400,330 (0: as taken)
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { runCardTask } from '../src/vision/cards/card-tasks.ts';
import { installedSpeciesLexicon } from '../src/vision/recognition/name-lexicon.ts';
import type { Spotted } from '../src/vision/models/ctc-spotting.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
interface Identity { file: string; split: string | null; width: number; set?: string }
const photos = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Identity[] }).photos.filter((p) => p.split === 'train' && p.set !== 'slab');
const shrinks = (process.env.SHRINK ?? '0,400,330').split(',').map(Number);

// the installed lexicon, its `accepts` shown every look's result (card-reading.ts reads with this object)
const lexicon = installedSpeciesLexicon();
const accepts = lexicon.accepts;
let seen: Spotted[] = [];
lexicon.accepts = (s) => (seen.push(s), accepts(s));

let looks = 0;
let named = 0;
let ms = 0;
for (const shrink of shrinks) {
  for (const p of shrink ? photos.filter((q) => q.width >= 600) : photos) {
    const file = path.join(datasets, p.file);
    const bytes = shrink ? await sharp(file).rotate().resize({ width: shrink }).jpeg({ quality: 80 }).toBuffer() : fs.readFileSync(file);
    seen = [];
    const t = performance.now();
    const result = await runCardTask({ kind: 'card', image: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, maxPixels: 100e6, op: 'read', options: { names: true } } as Parameters<typeof runCardTask>[0]);
    ms += performance.now() - t;
    const lines = 'readings' in result ? (result.readings ?? []).flatMap((r) => r.lines.map((l) => (l.spotted ? `${l.text} → ${l.spotted.text} (${l.spotted.word}, ${l.spotted.outside} outside)` : l.text))) : [];
    looks += seen.length;
    named += lines.filter((l) => l.includes(' → ')).length;
    console.log(`${shrink || 'as taken'} ${p.file}`);
    for (const l of lines) console.log(`  ${l}`);
    for (const s of seen) console.log(`  look ${JSON.stringify(s)}`);
  }
}
console.error(`${looks} looks, ${named} lines named, ${(ms / 1000).toFixed(0)} s of reading`);
