/**
 * A shop with both the Pokémon and the Magic catalogs imported (as a card shop commonly has), sent
 * Magic cards photographed small and soft: how often the best match is a Pokémon card. Where a Pokémon
 * catalog is searched, a name line that names no species is looked at for species names (name-lexicon.ts,
 * ctc-spotting.ts); on a blurry Magic name line the look can find one (`Lantern Scout` → Lanturn,
 * `Dormant Grove` → Durant: scripts/name-look-cost.ts), and the species is then a name candidate.
 *
 *   npx tsx scripts/mixed-shop-dev.ts
 *
 * Material, all drawn with a fixed seed:
 *  - `scan`: the 22 Gatherer reference scans (`../shared/datasets/mtg_gatherer_reference/cards`, real
 *    English cards, 223–265 px wide) degraded as small or blurry phone and listing photos: each shrunk or
 *    enlarged so the card is 150–300 px wide, blurred (sigma 0.3–1.3), on a margin of a table colour
 *    (10–30 % of the card's width each side), saved as JPEG at quality 40–70; DEGRADE=4 such photos of
 *    each card. Truth: the name, and the printing (that multiverse id's printing,
 *    by its Scryfall id: the Magic catalog's card key).
 *  - `frame`: Magic names whose rough rendered line the look itself puts a species into (found offline:
 *    SAMPLE=600 distinct Magic names of 5–16 letters, seeded, each drawn as name-look-cost.ts's rough line
 *    and read by `ocr.read` with the species lexicon; the first FRAMES=24 named), each drawn into a simple
 *    Magic-like card (black border, coloured frame, name bar, mana dots, an art box, a type line, a text
 *    box, a power/toughness box), then degraded as above, two photos each. Truth: the name only (any
 *    printing of it). FRAMES=0 skips them (and the offline look).
 *
 * WIDTHS=150,200 draws every card 150–200 px wide (a harsher run); PER_FRAME=2 photos of each frame name.
 *
 * Counts per kind: named right (best match's name the card's), printing right (scans only; `tied`:
 * reprints of one artwork tie, the printing among the alternatives at the best's distance), another
 * Magic card, no match (`near`: a Pokémon card listed first at a name-level distance, what a name read
 * surely alone scores), and POKEMON (best match a Pokémon card: the failure of interest). Every photo's
 * outcome line: `== MARK key truth …`, then what was read and the best and alternatives.
 * BASE=<an earlier run's output> lists the photos whose mark changed since. ONLY=<substring of a key>
 * keeps some photos. The figures of 2026-12-07 (h306): docs/recognition.md, "Names spotted".
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { loupeCli } from '../test/helpers/processes.ts';
import { startServer } from '../bench/lib-server.ts';
import { normalizeName } from '../src/catalog/card-keys.ts';
import { NAME_LEVEL } from '../src/services/recognition/identify.ts';
import { seededRandom, seededSample } from '../src/util/seeded-random.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
const catalogs = path.join(shared, 'catalogs');
const degrade = Number(process.env.DEGRADE ?? 4);
const sample = Number(process.env.SAMPLE ?? 600);
const frames = Number(process.env.FRAMES ?? 24);
/** WIDTHS=150,300: the card's width in the photo is drawn between these (HARSH runs: 150,200). */
const [minWidth, maxWidth] = (process.env.WIDTHS ?? '150,300').split(',').map(Number) as [number, number];
/** Photos of each frame name. */
const perFrame = Number(process.env.PER_FRAME ?? 2);
const only = (key: string) => !process.env.ONLY || key.includes(process.env.ONLY);

const letters = (s: string) => s.normalize('NFD').replace(/[^A-Za-z]/g, '').length;
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Photo { key: string; kind: 'scan' | 'frame'; name: string; uuid: string | null; jpeg: Buffer }
const TABLES = ['#8a7560', '#d8d4cc', '#3a3a40', '#b09a7a', '#f2f2f2', '#5d6b55'];
/** A card image made small and soft: card `width` px wide, blurred, on a margin, JPEG. */
async function degraded(card: Buffer, r: () => number): Promise<Buffer> {
  const width = Math.round(minWidth + r() * (maxWidth - minWidth));
  const sigma = 0.3 + r() * 1.0;
  const quality = Math.round(40 + r() * 30);
  const margin = Math.round(width * (0.1 + r() * 0.2));
  const table = TABLES[Math.floor(r() * TABLES.length)]!;
  const small = await sharp(card).resize({ width }).blur(sigma).png().toBuffer();
  const meta = await sharp(small).metadata();
  const framed = await sharp({ create: { width: width + 2 * margin, height: meta.height! + 2 * margin, channels: 3, background: table } })
    .composite([{ input: small, left: margin, top: margin }])
    .png()
    .toBuffer();
  return sharp(framed).jpeg({ quality }).toBuffer();
}

const printings = JSON.parse(gunzipSync(fs.readFileSync(path.join(catalogs, 'mtg/mtgjson_printings.json.gz'))).toString('utf8')) as { uuid: string; name: string; type?: string; identifiers?: { multiverseId?: string; scryfallId?: string } }[];
const photos: Photo[] = [];

// the Gatherer scans, degraded
const manifest = JSON.parse(fs.readFileSync(path.join(datasets, 'mtg_gatherer_reference/manifest.json'), 'utf8')) as { files: { file: string; labels: { card_name: string | null; multiverse_id: string } }[] };
const r = seededRandom(68306);
for (const f of manifest.files.filter((x) => x.file.startsWith('cards/') && x.labels.card_name)) {
  // the Magic catalog's card key is the printing's Scryfall id
  const uuid = printings.find((p) => p.identifiers?.multiverseId === f.labels.multiverse_id)?.identifiers?.scryfallId ?? null;
  const src = fs.readFileSync(path.join(datasets, 'mtg_gatherer_reference', f.file));
  for (let i = 0; i < degrade; i++) {
    const jpeg = await degraded(src, r);
    const key = `scan ${path.basename(f.file).replace(/\.jpe?g$/, '')}#${i}`;
    if (only(key)) photos.push({ key, kind: 'scan', name: f.labels.card_name!, uuid, jpeg });
  }
}

// Magic names the look itself names a species on, drawn into a card-like frame
if (frames > 0) {
  const { loadOcrReader } = await import('../src/vision/models/ocr-reader.ts');
  const { installedSpeciesLexicon } = await import('../src/vision/recognition/name-lexicon.ts');
  const ocr = await loadOcrReader({ threads: 1 });
  const lexicon = installedSpeciesLexicon();
  const names = seededSample(
    [...new Set(printings.filter((p) => !p.name.includes('//')).map((p) => p.name))].filter((n) => letters(n) >= 5 && letters(n) <= 16).sort(),
    sample,
    306,
  );
  const found: { name: string; species: string }[] = [];
  for (const name of names) {
    if (found.length >= frames) break;
    // name-look-cost.ts's rough line: font size 8, blurred 0.8, JPEG quality 40
    const size = 8;
    const width = Math.ceil(name.length * size * 0.75 + 4 * size);
    const height = Math.ceil(size * 3);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#fff"/><text x="${2 * size}" y="${Math.round(size * 1.9)}" font-family="DejaVu Sans" font-weight="bold" font-size="${size}" fill="#111">${escape(name)}</text></svg>`;
    const jpeg = await sharp(await sharp(Buffer.from(svg)).removeAlpha().png().toBuffer()).blur(0.8).jpeg({ quality: 40 }).toBuffer();
    const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const read = await ocr.read({ data: new Uint8Array(data), width: info.width, height: info.height }, { lexicon });
    const spotted = read.find((l) => l.spotted)?.spotted;
    if (spotted) found.push({ name, species: spotted.text });
  }
  await ocr.dispose();
  console.log(`frame names (the look named a species on their rough line; ${found.length} found in ${names.length} at most): ${found.map((f) => `${f.name}→${f.species}`).join(', ')}`);
  const colours = [
    ['#e9e4d0', '#f7f3e6'],
    ['#3d78b8', '#c9dcef'],
    ['#3b3535', '#cfc7c4'],
    ['#c4493a', '#f0d0c4'],
    ['#3f7a45', '#cfe3cc'],
    ['#b9a16a', '#efe4c4'],
  ];
  const types = ['Creature — Human Wizard', 'Creature — Elf Warrior', 'Instant', 'Sorcery', 'Creature — Goblin', 'Enchantment', 'Artifact', 'Creature — Zombie Knight'];
  const fr = seededRandom(3060);
  for (const { name } of found) {
    const [frame, pale] = colours[Math.floor(fr() * colours.length)]!;
    const type = types[Math.floor(fr() * types.length)]!;
    const creature = type.startsWith('Creature');
    const mana = 1 + Math.floor(fr() * 3);
    const W = 250;
    const H = 349;
    const dots = Array.from({ length: mana }, (_, i) => `<circle cx="${W - 24 - i * 11}" cy="26" r="4.5" fill="#d8d0c0" stroke="#222" stroke-width="0.8"/>`).join('');
    const rules = ['When this enters the battlefield,', 'draw a card, then discard a card.', 'Flying'].map((t, i) => `<text x="24" y="${250 + i * 14}" font-family="DejaVu Serif" font-size="10" fill="#111">${escape(t)}</text>`).join('');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
<rect width="${W}" height="${H}" rx="12" fill="#111"/>
<rect x="10" y="10" width="${W - 20}" height="${H - 24}" fill="${frame}"/>
<rect x="15" y="16" width="${W - 30}" height="20" rx="3" fill="${pale}" stroke="#333" stroke-width="0.8"/>
<text x="21" y="31" font-family="DejaVu Serif" font-weight="bold" font-size="12" fill="#111">${escape(name)}</text>${dots}
<rect x="18" y="40" width="${W - 36}" height="160" fill="#7a8a95"/>
<rect x="40" y="80" width="90" height="70" fill="#a58f6e"/><circle cx="170" cy="110" r="30" fill="#55606a"/>
<rect x="15" y="203" width="${W - 30}" height="18" rx="3" fill="${pale}" stroke="#333" stroke-width="0.8"/>
<text x="21" y="216" font-family="DejaVu Serif" font-weight="bold" font-size="10" fill="#111">${escape(type)}</text>
<rect x="18" y="225" width="${W - 36}" height="85" fill="${pale}"/>${rules}
${creature ? `<rect x="${W - 58}" y="300" width="42" height="18" rx="3" fill="${pale}" stroke="#333"/><text x="${W - 49}" y="314" font-family="DejaVu Sans" font-weight="bold" font-size="11" fill="#111">${1 + Math.floor(fr() * 4)}/${1 + Math.floor(fr() * 4)}</text>` : ''}
<text x="20" y="${H - 16}" font-family="DejaVu Sans" font-size="6" fill="#ddd">Illus. A. Painter</text>
</svg>`;
    const card = await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).png().toBuffer();
    for (let i = 0; i < perFrame; i++) {
      const key = `frame ${name.replace(/\s+/g, '_')}#${i}`;
      if (only(key)) photos.push({ key, kind: 'frame', name, uuid: null, jpeg: await degraded(card, fr) });
    }
  }
}

const server = await startServer('sqlite', { LOUPE_FILE_ROOT: datasets });
const cli = (...args: string[]) => loupeCli({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '' }, ...args);
try {
  await cli('catalog', 'import', '--kind', 'pokemon', '--cards', path.join(catalogs, 'pokemon/cards.json'), '--sets', path.join(catalogs, 'pokemon/sets.json'));
  await cli('catalog', 'import', '--kind', 'mtg', '--cards', path.join(catalogs, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(catalogs, 'mtg/mtgjson_sets.json'));
  type Tally = { n: number; name: number; printing: number; tied: number; none: number; near: number; otherMagic: number; pokemon: number };
  const tallies = new Map<string, Tally>();
  const marks = new Map<string, string>();
  for (const p of photos) {
    const res = await fetch(`${server.url}/collectibles/v2/tcg_id`, { method: 'POST', headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ _base64: p.jpeg.toString('base64') }] }) });
    const body = (await res.json()) as { records: { _objects?: { _ocr?: { full_text: string }; _identification: { best_match: { id: string; name: string; subcategory: string; fields?: unknown } | null; alternatives: { id: string; name: string; subcategory: string }[]; distances: number[] } }[] }[] };
    const obj = body.records[0]?._objects?.[0];
    const best = obj?._identification.best_match ?? null;
    const t = tallies.get(p.kind) ?? { n: 0, name: 0, printing: 0, tied: 0, none: 0, near: 0, otherMagic: 0, pokemon: 0 };
    tallies.set(p.kind, t);
    t.n++;
    let mark: string;
    const first = obj?._identification.alternatives[0];
    if (!best) {
      t.none++;
      // no match, but a Pokémon card listed first at a name-level distance (the name alone: NAME_LEVEL.minScore)
      const near = first?.subcategory === 'Pokemon' && obj!._identification.distances[0]! <= Math.exp(-NAME_LEVEL.minScore / 4) // recognition-service.ts distanceOf;
      if (near) t.near++;
      mark = near ? 'near' : 'none';
    } else if (best.subcategory === 'Pokemon') {
      t.pokemon++;
      mark = 'POKEMON';
    } else if (normalizeName(best.name) === normalizeName(p.name)) {
      t.name++;
      const printing = !!p.uuid && best.id === p.uuid;
      if (printing) t.printing++;
      // reprints of one artwork tie: the printing among the alternatives at the best's distance
      const idn = obj!._identification;
      const tied = !printing && !!p.uuid && idn.alternatives.some((a, i) => a.id === p.uuid && idn.distances[i + 1] === idn.distances[0]);
      if (tied) t.tied++;
      mark = printing ? 'PRINTING' : tied ? 'tied' : 'named';
    } else {
      t.otherMagic++;
      mark = 'other';
    }
    marks.set(p.key, mark);
    console.log(`\n== ${mark} ${p.key} truth ${p.name}${p.uuid ? ` ${p.uuid}` : ''}`);
    console.log(`   read: ${JSON.stringify(obj?._ocr?.full_text ?? null)}`);
    const list = [...(best ? [best] : []), ...(obj?._identification.alternatives ?? [])].slice(0, 5);
    console.log(`   best ${best ? `${best.subcategory} ${best.id} ${best.name}` : 'none'}; ${list.map((a, i) => `${a.subcategory === 'Pokemon' ? 'P' : 'M'} ${a.id} ${a.name} ${obj?._identification.distances[i] ?? ''}`).join(' | ')}`);
  }
  if (process.env.BASE) {
    const before = new Map([...fs.readFileSync(process.env.BASE, 'utf8').matchAll(/^== (\S+) (\S+ \S+) /gm)].map((m) => [m[2]!, m[1]!]));
    const changed = [...marks].filter(([k, m]) => before.has(k) && before.get(k) !== m);
    console.log(`\nchanged since ${process.env.BASE}: ${changed.length}${changed.map(([k, m]) => `\n  ${k}: ${before.get(k)} -> ${m}`).join('')}`);
  }
  console.log('');
  for (const [kind, t] of tallies)
    console.log(`${kind}: ${t.n} photos, named right ${t.name}${kind === 'scan' ? `, printing right ${t.printing} (tied with others at the best's distance ${t.tied} more)` : ''}, another Magic card ${t.otherMagic}, no match ${t.none} (a Pokémon card listed first at a name-level distance ${t.near}), best match a POKEMON card ${t.pokemon}`);
} finally {
  await server.stop();
}
