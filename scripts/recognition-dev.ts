/**
 * Recognition on the train split of the labelled real photos, photo by photo: what was read, what
 * was matched, and the truth beside it. What identification rules are looked at and set on; never
 * the validation photos (those are the bench's, `npm run bench -- recognition`).
 *
 *   npx tsx scripts/recognition-dev.ts
 *
 * Env: ONLY (a substring of the file names to keep); WIDTH=310 (only the train photos that wide: the
 * listing-size photos, for their time per photo); SET=generated for the generated photos of the
 * Pokémon reference designs of the bench's tune quarter instead (English cards, read whole and sharp);
 * SHRINK=400 for the train photos at least 600 px wide, shrunk to that width and saved again as JPEG
 * (quality 80), their card then about 200 px wide: the small listing photos most of the validation
 * split is, made from photos whose card reads at full size (what is lost to the size alone).
 * SHRINK=399,400,401 runs each size in turn and adds their mean: one pixel of width moves the counts
 * by about 3 (the recogniser at 200 px flips on a re-sampled outline), so a rule on one size is noise.
 * SHRINK=0,3200: the photos as taken, then those at least 600 px wide enlarged to 3,200 px (a phone's 12-MP
 * close-up): each size's time per photo is printed too.
 * BASE=<an earlier run's output>: the photos whose outcome (RIGHT, WRONG, listed, none, FALSE,
 * ok-none) changed since, listed at the end, photo by photo and size by size.
 * OUT=1 with SET=generated: the tune quarter's designs are taken out of the Pokémon catalog, so every
 * photo is of a card the catalog lacks (what the bench's out quarter checks, without looking at it):
 * each best match made is a false one.
 * RECORDS=<file>: each photo's whole answer record written there, one JSON line a photo (its request id left
 * out), so that a change meant to leave every answer as it was can be checked byte for byte (`cmp` two runs' files).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loupeCli } from '../test/helpers/processes.ts';
import { startServer } from '../bench/lib-server.ts';
import { normalizeName } from '../src/catalog/card-keys.ts';
import sharp from 'sharp';
import { generatedScenes, referenceDesigns } from '../bench/lib-recognition-designs.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
const catalogs = path.join(shared, 'catalogs');
interface Identity { file: string; split: string | null; width: number; set?: string; in_catalog: boolean; catalog_id: string | null; catalog_name?: string; printed_name?: string; jpeg?: Buffer }
const cards = new Map((JSON.parse(fs.readFileSync(path.join(catalogs, 'pokemon/cards.json'), 'utf8')) as { id: string; name: string; hp?: string; artist?: string }[]).map((c) => [c.id, c]));
// SHRINK=399,400,401: each size in turn, and their mean (one pixel of width moves the counts by about 3)
const shrinks = (process.env.SHRINK ?? '0').split(',').map(Number);
const only = (file: string) => !process.env.ONLY || file.includes(process.env.ONLY);
const base: Identity[] =
  process.env.SET === 'generated'
    ? (await generatedScenes(referenceDesigns(datasets), datasets, (d) => d.kind === 'pokemon' && d.quarter === 'tune' && only(d.id))).map((s) => ({
        file: s.design.id,
        split: 'tune',
        width: 1600,
        in_catalog: !process.env.OUT,
        catalog_id: process.env.OUT ? null : s.design.id,
        catalog_name: cards.get(s.design.id)?.name,
        jpeg: s.jpeg,
      }))
    : (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Identity[] }).photos.filter(
        (p) => p.split === 'train' && p.set !== 'slab' && only(p.file) && (!process.env.WIDTH || p.width === Number(process.env.WIDTH)),
      );
async function photosAt(shrink: number): Promise<Identity[]> {
  if (!shrink) return base;
  const out: Identity[] = [];
  for (const p of base.filter((q) => q.width >= 600)) {
    out.push({ ...p, jpeg: await sharp(path.join(datasets, p.file)).rotate().resize({ width: shrink }).jpeg({ quality: 80 }).toBuffer(), width: shrink });
  }
  return out;
}
const server = await startServer('sqlite', { LOUPE_FILE_ROOT: datasets });
const cli = (...args: string[]) => loupeCli({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '' }, ...args);
try {
  let pokemonCards = path.join(catalogs, 'pokemon/cards.json');
  if (process.env.OUT) {
    // the photographed designs out of the catalog: every match is then a false one
    const out = new Set(base.map((p) => p.file));
    pokemonCards = path.join(server.dataDir, 'cards-without-designs.json');
    fs.writeFileSync(pokemonCards, JSON.stringify([...cards.values()].filter((c) => !out.has(c.id))));
  }
  await cli('catalog', 'import', '--kind', 'pokemon', '--cards', pokemonCards, '--sets', path.join(catalogs, 'pokemon/sets.json'));
  await cli('catalog', 'import', '--kind', 'mtg', '--cards', path.join(catalogs, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(catalogs, 'mtg/mtgjson_sets.json'));
  const label = process.env.SET === 'generated' ? 'generated, tune quarter' : 'train';
  const tallies: { right: number; name: number; wrong: number; none: number; listed: number; n: number; outside: number; matchedOutside: number }[] = [];
  const ms: number[] = [];
  const msBySize: number[][] = [];
  const marks = new Map<string, string>();
  if (process.env.RECORDS) fs.writeFileSync(process.env.RECORDS, '');
  for (const shrink of shrinks) {
    const tally = { right: 0, name: 0, wrong: 0, none: 0, listed: 0, n: 0, outside: 0, matchedOutside: 0 };
    const sizeMs: number[] = [];
    msBySize.push(sizeMs);
    for (const p of await photosAt(shrink)) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/collectibles/v2/tcg_id`, { method: 'POST', headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [p.jpeg ? { _base64: p.jpeg.toString('base64') } : { _file: p.file }] }) });
      const body = await res.json();
      ms.push(performance.now() - t0);
      sizeMs.push(ms.at(-1)!);
      const rec = (body as { records: { _objects?: { _ocr?: { full_text: string }; _identification: { best_match: { id: string; name: string } | null; alternatives: { id: string; name: string }[]; distances: number[] } }[] }[] }).records[0]!;
      if (process.env.RECORDS) {
        const { request_id: _id, ...status } = (rec as unknown as { _status: Record<string, unknown> })._status;
        fs.appendFileSync(process.env.RECORDS, `${JSON.stringify({ photo: p.file, width: p.width, record: { ...rec, _status: status } })}\n`);
      }
      const obj = rec._objects?.[0];
      const idn = obj?._identification;
      const best = idn?.best_match ?? null;
      const truth = p.in_catalog ? p.catalog_id : null;
      const c = truth ? cards.get(truth) : undefined;
      if (truth) {
        tally.n++;
        if (best?.id === truth) tally.right++;
        else if (best) tally.wrong++;
        else tally.none++;
        if (best && p.catalog_name && normalizeName(best.name) === normalizeName(p.catalog_name)) tally.name++;
        if (best?.id === truth || idn?.alternatives.some((a) => a.id === truth)) tally.listed++;
      } else {
        tally.outside++;
        if (best) tally.matchedOutside++;
      }
      const mark = !truth ? (best ? 'FALSE' : 'ok-none') : best?.id === truth ? 'RIGHT' : best ? 'WRONG' : idn?.alternatives.some((a) => a.id === truth) ? 'listed' : 'none';
      marks.set(`${path.basename(p.file).slice(0, 30)} w${p.width}`, mark);
      console.log(`\n== ${mark} ${path.basename(p.file).slice(0, 30)} w${p.width} truth ${truth ?? '-'} (${p.printed_name ?? ''} / ${p.catalog_name ?? ''}) hp ${c?.hp ?? '-'} illus. ${c?.artist ?? '-'}`);
      console.log(`   read: ${JSON.stringify(obj?._ocr?.full_text ?? null)}`);
      const list = [...(best ? [best] : []), ...(idn?.alternatives ?? [])];
      console.log(`   best ${best?.id ?? 'none'}; ${list.map((a, i) => `${a.id} ${a.name} ${idn?.distances[i] ?? ''}`).join(' | ')}`);
    }
    tallies.push(tally);
  }
  const line = (t: (typeof tallies)[number]) =>
    `${t.n} in catalog, right ${t.right}, top-1 name ${t.name}, wrong ${t.wrong}, none ${t.none}, listed ${t.listed}; out of catalog matched ${t.matchedOutside} of ${t.outside}`;
  if (process.env.BASE) {
    // the outcome lines an earlier run printed: `== MARK photo wWIDTH ...`
    const before = new Map([...fs.readFileSync(process.env.BASE, 'utf8').matchAll(/^== (\S+) (\S+ w\d+) /gm)].map((m) => [m[2]!, m[1]!]));
    const changed = [...marks].filter(([k, m]) => before.has(k) && before.get(k) !== m);
    console.log(`\nchanged since ${process.env.BASE}: ${changed.length}${changed.map(([k, m]) => `\n  ${k}: ${before.get(k)} -> ${m}`).join('')}`);
  }
  console.log('');
  shrinks.forEach((s, i) => console.log(`${label}${s ? ` shrunk to ${s} px` : ''}: ${line(tallies[i]!)}`));
  if (tallies.length > 1) {
    const mean = (k: keyof (typeof tallies)[number]) => Math.round((tallies.reduce((a, t) => a + t[k], 0) / tallies.length) * 10) / 10;
    console.log(`${label}, mean of ${shrinks.join(' / ')} px: right ${mean('right')}, top-1 name ${mean('name')}, wrong ${mean('wrong')}, none ${mean('none')}, listed ${mean('listed')}; out of catalog matched ${mean('matchedOutside')}`);
  }
  // one request at a time, as a scanning app sends them; the first pays for warming the workers
  ms.sort((a, b) => a - b);
  console.log(`time per photo (the request, one at a time): p50 ${Math.round(ms[ms.length >> 1]!)} ms, p90 ${Math.round(ms[Math.floor(ms.length * 0.9)]!)} ms`);
  // a size's own times where several were run (a 12-MP file costs its decoding and its larger warp)
  if (msBySize.length > 1)
    shrinks.forEach((s, i) => {
      const t = [...msBySize[i]!].sort((a, b) => a - b);
      console.log(`  ${s ? `shrunk to ${s} px` : 'as taken'}: p50 ${Math.round(t[t.length >> 1]!)} ms, p90 ${Math.round(t[Math.floor(t.length * 0.9)]!)} ms`);
    });
} finally {
  await server.stop();
}
