/**
 * `npm run bench -- fashion-quality`: how often the item a fashion insert stores is the garment a
 * person would name (issue 20, "Quality … Fashion"), against labels made by eye
 * (test/fixtures/search-quality/fashion-labels.json; who labelled, how and the rule are written
 * there). Runs the vision worker's `item` task directly (one thread), as a fashion insert without
 * categories does: the chosen item is the largest of the photo's items (garment regions from
 * MoveNet on the three largest CenterNet persons, CenterNet accessories).
 *
 * Per photo the labels give the largest visible garment's kind, box and colour family, the other
 * garments the eye could not rank against it (near-equal boxes in group photos: `alternatives`),
 * and, per person whose top and bottom are both visible, whether they wear one garment (dress,
 * jumpsuit) or two (`outfits`). Reported:
 * - item: the chosen item's kind equals the label's and IoU ≥ 0.3 with its box; the same with any
 *   alternative accepted; kind alone.
 * - colour: the family (concepts.ts `familyOf`) of the chosen item's main colour (the first of its
 *   dominant colours) against the label's; the same only where the item is right; and the colour
 *   task on the labelled box itself, which separates choosing the wrong region from naming its
 *   colour; and that box's colours with the background kept (`excludeBackground: false`, on the
 *   worker's 320-pixel colour decode), which separates the background removal from the naming.
 * - full body or split: per labelled outfit, what the items say about that person (a full-body
 *   item over the outfit's box: one garment; an upper-body and a lower-body item inside it: two).
 *
 *   npm run bench -- fashion-quality      (about 1 min on 2 shared cores)
 *
 * Why an item is missed: the pose MoveNet finds on each of the three largest CenterNet persons'
 * crops (cut from the photo as stored; the worker cuts them from its 1024-pixel decode, the
 * same for photos no larger), as counts of the shoulders, hips, knees and ankles it sees at
 * score ≥ 0.3 (the region code's threshold): an upper body needs a shoulder and a hip.
 *
 * n is small (23 photos, 36 outfits): one photo is 4 points of the item figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { decodeRgb } from '../src/media/decode-rgb.ts';
import { familyOf, type ColorName } from '../src/text-search/lexicon/concepts.ts';
import type { Box, Item } from '../src/vision/fashion/item-regions.ts';
import { VisionEngine } from '../src/vision/engine/vision-engine.ts';
import { dominantColors } from '../src/vision/models/dominant-colors.ts';

const root = path.resolve(import.meta.dirname, '..');
const labelsFile = path.join(root, 'test/fixtures/search-quality/fashion-labels.json');

interface Garment {
  kind: string;
  box: Box;
  family: string;
  family_alt?: string;
  what: string;
}
interface Labelled extends Garment {
  /** Relative to the repository root. */
  file: string;
  /** A cell of a collage: `[x0, y0, x1, y1]`; the photo is that region, boxes are in its pixels. */
  crop?: Box;
  alternatives: Garment[];
  outfits: { box: Box; one_piece: boolean; what: string }[];
}
const labels = JSON.parse(fs.readFileSync(labelsFile, 'utf8')) as { labelled_by: string; method: string; rule: string; images: Labelled[] };
const missing = labels.images.filter((l) => !fs.existsSync(path.join(root, l.file)));
if (missing.length) {
  console.log(`fashion-quality bench: ${missing.map((l) => l.file).join(', ')} not found (../shared/datasets and node_modules are needed); skipped.`);
  process.exit(0);
}

const area = (b: Box) => Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
function iou(a: Box, b: Box): number {
  const i = area([Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])]);
  return i / (area(a) + area(b) - i || 1);
}
const centreIn = (a: Box, b: Box) => (a[0] + a[2]) / 2 >= b[0] && (a[0] + a[2]) / 2 <= b[2] && (a[1] + a[3]) / 2 >= b[1] && (a[1] + a[3]) / 2 <= b[3];
const familyOfName = (name: string | undefined) => (name ? (familyOf[name as ColorName] ?? name) : 'none');
const matches = (item: Item, g: Garment) => item.name === g.kind && iou(item.box, g.box) >= 0.3;
const colourOk = (family: string, g: Garment) => family === g.family || family === g.family_alt;
const pct = (n: number, d: number) => `${n} / ${d} (${d ? Math.round((100 * n) / d) : 0} %)`;
const short = (b: Box) => `[${b.join(',')}]`;
const nameOf = (l: Labelled) => `${path.basename(l.file)}${l.crop ? ` cell ${short(l.crop)}` : ''}`;

async function photoBytes(l: Labelled): Promise<Buffer> {
  const file = path.join(root, l.file);
  if (!l.crop) return fs.readFileSync(file);
  const [x0, y0, x1, y1] = l.crop;
  return sharp(file).extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 }).png().toBuffer();
}

/** What the items say about one labelled person: one garment, two, or nothing to tell. */
function outfitCall(items: Item[], box: Box): 'one piece' | 'split' | 'no pose' {
  const full = items.filter((i) => i.name === 'full body' && iou(i.box, box) >= 0.3);
  if (full.length) return 'one piece';
  const upper = items.some((i) => i.name === 'upper body' && centreIn(i.box, box) && iou(i.box, box) >= 0.15);
  const lower = items.some((i) => i.name === 'lower body' && centreIn(i.box, box));
  return upper && lower ? 'split' : 'no pose';
}

const engine = new VisionEngine({ threads: 1, maxQueue: 10, taskTimeoutMs: 120_000, warm: [], embedder: '' });
await engine.start();
const started = new Date();
const rows: {
  l: Labelled;
  chosen: Item;
  items: Item[];
  persons: number;
  colour: string;
  colourName: string;
  boxColour: string;
  boxColourName: string;
  keptColour: string;
  keptColourName: string;
  poses: string;
  strict: boolean;
  lenient: boolean;
  ms: number;
}[] = [];
try {
  for (const l of labels.images) {
    const bytes = await photoBytes(l);
    const t0 = performance.now();
    // The bytes are transferred to the worker: a fresh copy per call.
    const r = await engine.image('item', Buffer.from(bytes), 100_000_000, { domain: 'fashion', seen: [] });
    const ms = performance.now() - t0;
    const onBox = await engine.image('colors', Buffer.from(bytes), 100_000_000, { boundBox: l.box });
    const colourName = r.colors[0]?.name ?? '';
    // The labelled box's colours with nothing dropped, on the decode the worker's colours use.
    const small = await decodeRgb(Buffer.from(bytes), 100_000_000, { maxEdge: 320 });
    const sx = small.width / small.originalWidth;
    const sy = small.height / small.originalHeight;
    const region: Box = [Math.floor(l.box[0] * sx), Math.floor(l.box[1] * sy), Math.ceil(l.box[2] * sx), Math.ceil(l.box[3] * sy)];
    const kept = dominantColors({ data: small.data, width: small.width, height: small.height }, { boundBox: region, excludeBackground: false })[0]?.name ?? '';
    // The pose of each of the three largest persons, on their crop as the worker runs it.
    const persons = r.observed.objects.filter((o) => o.name === 'person').sort((a, b) => area(b.box) - area(a.box)).slice(0, 3);
    const poses: string[] = [];
    for (const p of persons) {
      const [x0, y0, x1, y1] = p.box;
      const crop = await sharp(bytes).extract({ left: x0, top: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0) }).png().toBuffer();
      const best = (await engine.image('pose', crop, 100_000_000)).poses[0];
      const seen = (side: string) => best?.keypoints.filter((k) => k.prob >= 0.3 && k.part.toLowerCase().endsWith(side)).length ?? 0;
      poses.push(best ? `S${seen('shoulder')} H${seen('hip')} K${seen('knee')} A${seen('ankle')}` : 'no pose');
    }
    rows.push({
      l,
      chosen: r.chosen,
      items: r.items,
      persons: r.observed.objects.filter((o) => o.name === 'person').length,
      colour: familyOfName(colourName),
      colourName,
      boxColour: familyOfName(onBox.colors[0]?.name),
      boxColourName: onBox.colors[0]?.name ?? '',
      keptColour: familyOfName(kept),
      keptColourName: kept,
      poses: poses.join(' · ') || 'no person',
      strict: matches(r.chosen, l),
      lenient: [l, ...l.alternatives].some((g) => matches(r.chosen, g)),
      ms,
    });
  }
} finally {
  await engine.close();
}

// ---------------------------------------------------------------- report

const n = rows.length;
const strict = rows.filter((r) => r.strict);
const lenient = rows.filter((r) => r.lenient);
const kindOnly = rows.filter((r) => r.chosen.name === r.l.kind).length;
const kindAny = rows.filter((r) => [r.l, ...r.l.alternatives].some((g) => g.kind === r.chosen.name)).length;
const colourStrict = rows.filter((r) => r.colour === r.l.family).length;
const colourAlt = rows.filter((r) => colourOk(r.colour, r.l)).length;
// Where the chosen item is a labelled garment (primary or alternative), its colour against that garment's label.
const garmentOf = (r: (typeof rows)[number]) => [r.l, ...r.l.alternatives].find((g) => matches(r.chosen, g));
const onRight = rows.filter((r) => garmentOf(r));
const colourOnRight = onRight.filter((r) => colourOk(r.colour, garmentOf(r)!)).length;
const boxColour = rows.filter((r) => colourOk(r.boxColour, r.l)).length;
const boxColourStrict = rows.filter((r) => r.boxColour === r.l.family).length;
const keptColour = rows.filter((r) => colourOk(r.keptColour, r.l)).length;

const outfits = rows.flatMap((r) => r.l.outfits.map((o) => ({ r, o, call: outfitCall(r.items, o.box) })));
const told = outfits.filter((x) => x.call !== 'no pose');
const right = (x: (typeof outfits)[number]) => (x.call === 'one piece') === x.o.one_piece;
const byTruth = (one: boolean) => {
  const xs = told.filter((x) => x.o.one_piece === one);
  return `${pct(xs.filter(right).length, xs.length)}`;
};

const out = [
  `# fashion-quality bench — ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores, the worker's \`item\` task (domain fashion, no categories), 1 thread`,
  '',
  `Labels: ${labels.labelled_by}. ${n} photos, ${outfits.length} outfits. n is small: one photo is ${(100 / n).toFixed(0)} points.`,
  '',
  '| measure | photos |',
  '|---|---|',
  `| chosen item = labelled largest garment (same kind, IoU ≥ 0.3) | **${pct(strict.length, n)}** |`,
  `| … or one of the near-equal garments listed as alternatives | ${pct(lenient.length, n)} |`,
  `| kind only (chosen kind = labelled kind) | ${pct(kindOnly, n)} |`,
  `| kind only, alternatives' kinds accepted | ${pct(kindAny, n)} |`,
  `| colour family of the chosen item's main colour = label's family | ${pct(colourStrict, n)} |`,
  `| … = label's family or its borderline second family | **${pct(colourAlt, n)}** |`,
  `| … where the chosen item is a labelled garment, against that garment's label | ${pct(colourOnRight, onRight.length)} |`,
  `| colour task on the hand-labelled box itself (family or second) | ${pct(boxColour, n)} (family alone ${boxColourStrict}) |`,
  `| … the same box with the background kept (excludeBackground: false) | ${pct(keptColour, n)} |`,
  `| item task p50 per photo | ${[...rows.map((r) => r.ms)].sort((a, b) => a - b)[Math.floor(n / 2)]!.toFixed(0)} ms |`,
  '',
  `Full body or split, per labelled outfit (${outfits.length}: ${outfits.filter((x) => x.o.one_piece).length} dresses, ${outfits.filter((x) => !x.o.one_piece).length} separates): items told something for ${told.length}; right ${pct(told.filter(right).length, told.length)} — dresses called full body ${byTruth(true)}, separates called split ${byTruth(false)}; no full-body, upper- and lower-body items for that person (not among the 3 largest persons, legs not found, or no pose) ${outfits.length - told.length}.`,
  '',
  '| photo | label (kind, family) | chosen (kind, box, main colour) | IoU | item | colour | labelled box\'s colour (background kept) | persons | pose of the 3 largest (shoulders, hips, knees, ankles seen) | items found |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const best = Math.max(iou(r.chosen.box, r.l.box), ...r.l.alternatives.map((g) => (g.kind === r.chosen.name ? iou(r.chosen.box, g.box) : 0)));
    const items = r.items.map((i) => `${i.name} ${short(i.box)}`).join('; ');
    return `| ${nameOf(r.l)} | ${r.l.kind}, ${r.l.family}${r.l.family_alt ? `/${r.l.family_alt}` : ''} ${short(r.l.box)} | ${r.chosen.name} ${short(r.chosen.box)}, ${r.colourName} | ${iou(r.chosen.box, r.l.box).toFixed(2)}${best > iou(r.chosen.box, r.l.box) ? ` (alt ${best.toFixed(2)})` : ''} | ${r.strict ? '✓' : r.lenient ? 'alt' : '✗'} | ${colourOk(r.colour, r.l) ? '✓' : '✗'} | ${r.boxColourName} ${colourOk(r.boxColour, r.l) ? '✓' : '✗'} (${r.keptColourName} ${colourOk(r.keptColour, r.l) ? '✓' : '✗'}) | ${r.persons} | ${r.poses} | ${items} |`;
  }),
  '',
  'Outfits (✓ right, ✗ wrong, – nothing to tell):',
  ...outfits.map((x) => `- ${nameOf(x.r.l)} ${x.o.what} (${x.o.one_piece ? 'one piece' : 'separates'}): ${x.call} ${x.call === 'no pose' ? '–' : right(x) ? '✓' : '✗'}`),
  '',
  `(${((Date.now() - started.getTime()) / 1000).toFixed(0)} s)`,
];
console.log(out.join('\n'));
