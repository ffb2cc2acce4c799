/**
 * The card detector on the hand-labelled train photos (training/card-detector/train-corners.json:
 * the dev fifth and the rest apart) and on the no-card threshold photos (faces_persons, UKBench,
 * the train split's shop photos): what the training choices in docs/card-detector.md
 * "Thresholds" are made on. Never the validation photos or Caltech (those are the bench's).
 *
 *   npx tsx scripts/card-detector-dev.ts
 *
 * Env: CORNERS, VERIFIER, DETECTOR (other .onnx files), SPREADS (doubt limits, comma-separated: the
 * detector runs at the largest, the others are applied after), LABELS (another label file),
 * ONLY=dev (the dev photos alone; LABELS may name files by absolute path: training/card-detector/slab_scenes.py), NEG=0 (no threshold photos), VERIFIED (the verifier's
 * thresholds, comma-separated: the detector runs at the lowest, the others are applied after;
 * a card it keeps that a higher threshold would drop can still have started the tiles), NEG_DIR (a
 * folder of more no-card photos, added to the threshold photos), NEG_LIST=1 (name each no-card photo
 * with a card, with the verifier's probability: to see what kind of photo fools it, never to train on),
 * SECOND_LOOK (the verifier threshold for outlines the card map did not give), DUMP=1 (each train
 * photo whose largest card has a corner over 1 % off, with its four errors; DUMP=all
 * the dev photos too).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { execSync } from 'node:child_process';
import { CardDetector } from '../src/vision/cards/card-detector.ts';
import { decodeCardPhoto } from '../src/vision/cards/card-tasks.ts';
import type { Quad } from '../src/vision/geometry/plane-geometry.ts';
import { area, cornerErrors, sameCard } from '../bench/lib-card-match.ts';
const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const labels = JSON.parse(fs.readFileSync(process.env.LABELS ?? path.resolve(import.meta.dirname, '../training/card-detector/train-corners.json'), 'utf8')).photos as { file: string; cards: { corners: Quad; hidden: number[]; kind?: string }[] }[];
const spreadList = (process.env.SPREADS ?? '0.032').split(',').map(Number);
const verifiedList = (process.env.VERIFIED ?? '0.5').split(',').map(Number);
// every (doubt limit, verifier threshold) pair is one setting
const settings = spreadList.flatMap((spread) => verifiedList.map((verified) => ({ spread, verified })));
const det = await CardDetector.load(1, {
  ...(process.env.DETECTOR ? { detector: process.env.DETECTOR } : {}),
  ...(process.env.CORNERS ? { corners: process.env.CORNERS } : {}),
  ...(process.env.VERIFIER ? { verifier: process.env.VERIFIER } : {}),
  ...(process.env.HOLDER ? { holder: process.env.HOLDER } : {}),
  ...(process.env.SECOND_LOOK ? { minSecondLook: Number(process.env.SECOND_LOOK) } : {}),
  maxSpread: Math.max(...spreadList),
  minVerified: Math.min(...verifiedList),
});
const inDev = (name: string) => BigInt('0x' + createHash('sha1').update(name).digest('hex')) % 5n === 0n;
const load = async (file: string) => {
  const img = await decodeCardPhoto(fs.readFileSync(path.resolve(datasets, file)), 50_000_000);
  const found = await det.detect({ data: img.data, width: img.width, height: img.height });
  const sx = img.originalWidth / img.width, sy = img.originalHeight / img.height;
  return found.map((c) => ({ quad: c.quad.map(([x, y]) => [(x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5]) as Quad, spread: c.spread.reduce((a, b) => a + b, 0) / 4, verified: c.verified ?? 1, kind: c.kind }));
};
type Res = { dev: boolean; cards: number; found: number[]; largest: (number[] | null)[]; extra: number[]; kinds: { truth: boolean; said: boolean }[] };
const out: Res[] = [];
for (const p of labels) {
  const name = p.file.replace('real_card_photos/', '');
  const dev = inDev(name);
  if (process.env.ONLY === 'dev' && !dev) continue;
  const found = await load(p.file);
  const res: Res = { dev, cards: p.cards.length, found: [], largest: [], extra: [], kinds: [] };
  const biggest = [...p.cards].sort((a, b) => area(b.corners) - area(a.corners))[0];
  for (const lim of settings) {
    const kept = found.filter((f) => f.spread <= lim.spread && f.verified >= lim.verified);
    // a card is found as the bench counts one (bench/lib-card-match.ts): an outline's centre within a quarter of its width of the
    // label's, and its width within a quarter (until 2026-11-29 any width: a half card counted)
    const hit = (t: Quad) => kept.find((f) => sameCard(f.quad, t));
    res.found.push(p.cards.filter((c) => hit(c.corners)).length);
    res.extra.push(kept.filter((f) => !p.cards.some((c) => sameCard(f.quad, c.corners))).length);
    if (!biggest) { res.largest.push(null); continue; }
    const h = hit(biggest.corners);
    // held: in a sleeve, top-loader or slab, by the label's kind and by the detector's
    if (h && lim === settings[0]) res.kinds.push({ truth: (biggest.kind ?? 'raw') !== 'raw', said: h.kind !== 'raw' });
    const e = h ? cornerErrors(h.quad, biggest.corners) : [99, 99, 99, 99];
    res.largest.push(e.filter((_, k) => !(biggest.hidden ?? []).includes(k)));
  }
  out.push(res);
  // DUMP=1: each train photo whose largest card has a corner over 1 % off; DUMP=all: dev photos too
  if (process.env.DUMP && (process.env.DUMP === 'all' || !dev) && res.largest[0] && Math.max(...res.largest[0]) > 1) console.log(`  ${p.file} ${res.largest[0].map((e) => e.toFixed(1)).join(' ')}`);
}
const neg = process.env.NEG === '0' ? [] : execSync(`find ${datasets}/faces_persons ${datasets}/near_duplicates_ukbench -iname '*.jp*g' -o -iname '*.png'`).toString().trim().split('\n');
const manifest = JSON.parse(fs.readFileSync(path.join(datasets, 'real_card_photos/manifest.json'), 'utf8')).files as { file: string; split: string; labels: { cards: unknown[] } }[];
const shop = manifest.filter((f) => f.file.startsWith('shrey') && f.split === 'train' && !f.labels.cards.length).map((f) => path.join(datasets, 'real_card_photos', f.file));
const falseCards = settings.map(() => 0);
const extra = process.env.NEG_DIR ? fs.readdirSync(process.env.NEG_DIR).filter((f) => /\.(jpe?g|png)$/i.test(f)).map((f) => path.join(process.env.NEG_DIR!, f)) : [];
const negatives = process.env.NEG === '0' ? [] : [...neg, ...shop, ...extra];
let readable = 0;
for (const f of negatives) {
  let found: Awaited<ReturnType<typeof load>>;
  try {
    found = await load(path.relative(datasets, f));
  } catch {
    console.error('unreadable', f); // UKBench ships a deliberately corrupt file
    continue;
  }
  readable++;
  const kept = found.filter((c) => c.spread <= Math.max(...spreadList));
  if (process.env.NEG_LIST === '1' && kept.length) console.log(`  false card: ${path.basename(f)} verified ${kept.map((c) => c.verified.toFixed(3)).join(', ')}`);
  settings.forEach((lim, i) => (falseCards[i] = falseCards[i]! + (found.some((c) => c.spread <= lim.spread && c.verified >= lim.verified) ? 1 : 0)));
}
const pc = (xs: number[], l: number) => ((100 * xs.filter((e) => e <= l).length) / Math.max(1, xs.length)).toFixed(0);
settings.forEach((lim, i) => {
  for (const dev of [true, false]) {
    const rs = out.filter((r) => r.dev === dev);
    const corners = rs.flatMap((r) => r.largest[i] ?? []);
    console.log(`${dev ? 'dev  ' : 'train'} spread<=${lim.spread} verified>=${lim.verified}: photos ${rs.length}, largest found ${rs.filter((r) => r.largest[i] && r.largest[i]![0] !== 99).length}, cards ${rs.reduce((s, r) => s + r.found[i]!, 0)}/${rs.reduce((s, r) => s + r.cards, 0)}, extra ${rs.reduce((s, r) => s + r.extra[i]!, 0)}, corners <=1% ${pc(corners, 1)}% <=2% ${pc(corners, 2)}%`);
  }
  if (negatives.length) console.log(`  no-card photos (${readable}) with a card: ${falseCards[i]}`);
});
for (const dev of [true, false]) {
  const ks = out.filter((r) => r.dev === dev).flatMap((r) => r.kinds);
  const held = ks.filter((k) => k.truth);
  const raw = ks.filter((k) => !k.truth);
  console.log(`${dev ? 'dev  ' : 'train'} largest card's kind: right ${ks.filter((k) => k.truth === k.said).length} of ${ks.length}; held found ${held.filter((k) => k.said).length} of ${held.length}, raw kept raw ${raw.filter((k) => !k.said).length} of ${raw.length}`);
}
