/**
 * What the lexicon's look (ctc-spotting.ts, the species names of name-lexicon.ts) costs a name line of
 * another game, and what it finds on Pokémon name lines: name lines rendered (DejaVu Sans Bold on
 * white, saved as JPEG) and read by the recogniser (`ocr.read`) without and with the lexicon, in turn,
 * line by line; ms a line, the median of each line's runs, then the mean over a bucket's lines.
 *
 *   node --import tsx scripts/name-look-cost.ts          # REPEAT=3 runs of each line; NAMES=1 every line's reading
 *
 * Lines: 25 Magic names (`../shared/catalogs/mtg`, distinct names, seeded) of each length in letters
 * (8–15, 16–23, 24–29, 30–40; a double-faced card's `A // B` is one line, as the long ones mostly are)
 * at font size 14 (capitals about 10 px, JPEG quality 80: as review h295 drew them; mostly read surely,
 * so not looked at), and again rough (font size 8, blurred, quality 40: mostly looked at); and 25 French
 * Pokémon names with their HP (`Plumeline 90 PV`) at 14 and tiny (font size 6, quality 40: misread a
 * letter or two at a time, which is where the look names a species). `look ms` is the lexicon's cost a
 * line of the bucket, `looked` the lines the look was made on (the lexicon wanted the line and it was
 * not read surely: ocr-reader.ts), `ms a look` the cost on those, `named` the lines it put a species
 * into. The last line is a digest of every line's reading and look result (the line as read with the
 * word put in, and the look's full result as the lexicon's `accepts` saw it: word, cost, dearest step,
 * span, score, margin): the same digest before and after a change to the look says its results are
 * the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { loadOcrReader, type OcrLine, type SpotLexicon } from '../src/vision/models/ocr-reader.ts';
import { installedSpeciesLexicon } from '../src/vision/recognition/name-lexicon.ts';
import type { Spotted } from '../src/vision/models/ctc-spotting.ts';
import type { RgbPixels } from '../src/vision/engine/tfjs-runtime.ts';
import { seededRandom, seededSample } from '../src/util/seeded-random.ts';

const shared = path.resolve(import.meta.dirname, '../../shared/catalogs');
const repeat = Number(process.env.REPEAT ?? 3);
const perBucket = Number(process.env.PER_BUCKET ?? 25);

const letters = (s: string) => s.normalize('NFD').replace(/[^A-Za-z]/g, '').length;

const magic = [...new Set((JSON.parse(gunzipSync(fs.readFileSync(path.join(shared, 'mtg/mtgjson_printings.json.gz'))).toString('utf8')) as { name: string }[]).map((c) => c.name))].sort();
/** How a line is drawn: letters `size` px (the font size; capitals about 0.73 of it), blurred by `blur`, saved as JPEG at `quality`. */
interface Look {
  size: number;
  blur?: number;
  quality: number;
}
/** As review h295 drew them: read surely, mostly, so mostly not looked at. */
const CRISP: Look = { size: 14, quality: 80 };
/** Small, soft and compressed: some letters read below 0.9, so the line is looked at. */
const ROUGH: Look = { size: 8, blur: 0.8, quality: 40 };
/** Pokémon names misread a letter or two at a time, as on a card about 200 px wide. */
const TINY: Look = { size: 6, quality: 40 };
const buckets: { label: string; lines: ({ text: string } & Look)[] }[] = [];
for (const [lo, hi] of [
  [8, 15],
  [16, 23],
  [24, 29],
  [30, 40],
] as const) {
  const names = seededSample(magic.filter((n) => letters(n) >= lo && letters(n) <= hi), perBucket, 68 + lo);
  buckets.push({ label: `magic ${lo}–${hi}`, lines: names.map((text) => ({ text, ...CRISP })) });
  buckets.push({ label: `  rough`, lines: names.map((text) => ({ text, ...ROUGH })) });
}
const pokemonDir = path.join(path.dirname(createRequire(import.meta.url).resolve('pokemon/package.json')), 'data');
const french = (JSON.parse(fs.readFileSync(path.join(pokemonDir, 'fr.json'), 'utf8')) as string[]).filter((n) => letters(n) >= 5);
const hp = seededRandom(7);
const pokemonLines = seededSample(french, perBucket, 151).map((name) => `${name} ${10 * (3 + Math.floor(hp() * 25))} PV`);
buckets.push({ label: 'pokemon', lines: pokemonLines.map((text) => ({ text, ...CRISP })) });
buckets.push({ label: '  tiny', lines: pokemonLines.map((text) => ({ text, ...TINY })) });

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
async function render({ text, size, blur, quality }: { text: string } & Look): Promise<RgbPixels> {
  const width = Math.ceil(text.length * size * 0.75 + 4 * size);
  const height = Math.ceil(size * 3);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#fff"/><text x="${2 * size}" y="${Math.round(size * 1.9)}" font-family="DejaVu Sans" font-weight="bold" font-size="${size}" fill="#111">${escape(text)}</text></svg>`;
  let img = sharp(Buffer.from(svg)).removeAlpha();
  if (blur) img = sharp(await img.png().toBuffer()).blur(blur);
  const jpeg = await img.jpeg({ quality }).toBuffer();
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

const ocr = await loadOcrReader({ threads: 1 });
const species = installedSpeciesLexicon();
// the look's full result, as the lexicon's `accepts` is shown it
let seen: Spotted[] = [];
const lexicon: SpotLexicon = { ...species, wants: (t) => species.wants(t), accepts: (s) => (seen.push(s), species.accepts(s)) };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const digest = createHash('sha256');
const show = (lines: OcrLine[]) => lines.map((l) => (l.spotted ? `${l.text}→${l.spotted.text}` : l.text)).join(' | ');

// one read of each kind first: the models' first runs are slow
const warm = await render({ text: 'Warm up 60 PV', ...CRISP });
await ocr.read(warm);
await ocr.read(warm, { lexicon });

const col = (x: string | number, w: number) => String(x).padStart(w);
console.log(`${'lines'.padEnd(14)} ${col('n', 3)} ${col('plain ms', 9)} ${col('lexicon ms', 11)} ${col('look ms', 8)} ${col('looked', 7)} ${col('ms a look', 10)} ${col('named', 6)}`);
for (const bucket of buckets) {
  let plain = 0;
  let withLexicon = 0;
  let looked = 0;
  let lookedMs = 0;
  let named = 0;
  for (const line of bucket.lines) {
    const img = await render(line);
    const tPlain: number[] = [];
    const tLexicon: number[] = [];
    let read: OcrLine[] = [];
    let spotted: Spotted[] = [];
    for (let r = 0; r < repeat; r++) {
      let t = performance.now();
      await ocr.read(img);
      tPlain.push(performance.now() - t);
      seen = [];
      t = performance.now();
      read = await ocr.read(img, { lexicon });
      tLexicon.push(performance.now() - t);
      spotted = seen;
    }
    plain += median(tPlain);
    withLexicon += median(tLexicon);
    if (spotted.length) {
      looked++;
      lookedMs += median(tLexicon) - median(tPlain);
    }
    if (read.some((l) => l.spotted)) named++;
    digest.update(JSON.stringify({ line: line.text, size: line.size, read: read.map((l) => ({ text: l.text, prob: l.prob, spotted: l.spotted })), spotted }) + '\n');
    if (process.env.NAMES) {
      const looks = spotted.map((s) => `${s.word} ${s.perLetter.toFixed(2)}/letter margin ${s.margin.toFixed(2)} worst ${s.placement.worst.toFixed(2)}`).join(', ');
      console.log(`  ${line.text} (${line.size} px): ${show(read)}${looks ? `  [look: ${looks}]` : ''}`);
    }
  }
  const n = bucket.lines.length;
  console.log(`${bucket.label.padEnd(14)} ${col(n, 3)} ${col((plain / n).toFixed(1), 9)} ${col((withLexicon / n).toFixed(1), 11)} ${col(((withLexicon - plain) / n).toFixed(1), 8)} ${col(looked, 7)} ${col(looked ? (lookedMs / looked).toFixed(1) : '-', 10)} ${col(named, 6)}`);
}
console.log(`digest ${digest.digest('hex').slice(0, 16)}`);
await ocr.dispose();
