/**
 * `npm run bench -- identity-quality`: what `/identity/v2/person` and `/identity/v2/face` answer on the photos here,
 * before and after the h285 rules (docs/models.md, "Persons" and "Close-ups and thumbnails") and, for faces, the h289
 * rule ("Faces on photos of no one"), in-process on one thread as the vision worker computes them (photos decoded at
 * ≤ 1,024 px).
 *
 * Photos: ../shared/datasets/faces_persons (one-person photos: identity/, expression/ and the group/ photos of one
 * person; group photos: the others) and caltech101_subset (30 classes, none of people). Split as the rules were made:
 * within each folder, files sorted by path, even positions tune (A), odd ones held out (B); both are reported.
 * - persons: per one-person photo (mean, share exactly 1); on group photos, recall and precision of boxes against the
 *   by-eye labels of test/fixtures/person-labels.json; on Caltech, false persons (photos showing a human apart);
 * - faces: the hand annotations (test/fixtures/face-annotations.json) at prob ≥ 0.5, IoU 0.4 and 0.5; headshots
 *   (identity/, 150 × 150) with one face; Caltech photos of no one with a face (false faces: photos and boxes; Buddha
 *   statues apart) and the faces of the Caltech photos showing a human; 40 × 47 thumbnails: each headshot cut to the
 *   face, and each Caltech photo (false faces); the time of the faces task per photo (median), over all photos and over
 *   those with a face scored 0.5–0.8 (where h289's second look may run).
 *
 *   npm run bench -- identity-quality      (about 6 min on 2 shared cores)
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { decodeRgb } from '../src/media/decode-rgb.ts';
import { HumanDetector, notNestedFace, type Detection } from '../src/vision/models/human-detector.ts';
import { annotatedFaces, scoreFaces } from './lib-face-eval.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const root = path.resolve(import.meta.dirname, '..');
if (!fs.existsSync(path.join(datasets, 'faces_persons'))) {
  console.error('needs ../shared/datasets/faces_persons and caltech101_subset beside the project');
  process.exit(2);
}
const labels = JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/person-labels.json'), 'utf8')) as {
  groups: Record<string, { people: number; boxes: [number, number, number, number, 'T' | 'F'][] }>;
  caltech_showing_a_human: Record<string, string>;
  /** Faces a person can tell by eye in those photos (h289); photos not listed show none. */
  caltech_human_faces: Record<string, number>;
};

type Box = [number, number, number, number];
interface Photo { rel: string; set: 'identity' | 'expression' | 'group' | 'caltech'; split: 'A' | 'B' }
function sortedFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const f of fs.readdirSync(d).sort()) {
      const p = path.join(d, f);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (/\.(jpe?g|png)$/i.test(f)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}
const photos: Photo[] = [];
for (const set of ['identity', 'expression', 'group'] as const) {
  sortedFiles(path.join(datasets, 'faces_persons', set)).forEach((f, i) => photos.push({ rel: path.relative(datasets, f), set, split: i % 2 ? 'B' : 'A' }));
}
const caltech = path.join(datasets, 'caltech101_subset');
for (const cls of fs.readdirSync(caltech).filter((c) => !c.endsWith('.json')).sort()) {
  sortedFiles(path.join(caltech, cls)).forEach((f, i) => photos.push({ rel: path.relative(datasets, f), set: 'caltech', split: i % 2 ? 'B' : 'A' }));
}

const faces = await HumanDetector.load('faces');
const objects = await HumanDetector.load('objects');
type Found = { prob: number; bound_box: Box }[];
const faceRuns = ['before', 'h285', 'after'] as const;
type FaceRun = (typeof faceRuns)[number];
const faceRunName: Record<FaceRun, string> = { before: 'detector', h285: 'close-ups (h285)', after: 'and false faces (h289)' };
interface Seen { w: number; h: number; persons?: { before: Found; after: Found }; faces: Record<FaceRun, Found>; ms: Record<FaceRun, number> }
const back = (ds: Detection[], sx: number, sy: number): Found => ds.map((d) => ({ prob: d.prob, bound_box: [d.bound_box[0] * sx, d.bound_box[1] * sy, d.bound_box[2] * sx, d.bound_box[3] * sy].map(Math.round) as Box }));
async function look(bytes: Buffer, withPersons: boolean): Promise<Seen> {
  const img = await decodeRgb(bytes, 100_000_000, { maxEdge: 1024 });
  const px = { data: img.data, width: img.width, height: img.height };
  const sx = img.originalWidth / img.width;
  const sy = img.originalHeight / img.height;
  const timed = async (run: () => Promise<Detection[]>) => {
    const t0 = performance.now();
    const found = await run();
    return { found: back(found, sx, sy), ms: performance.now() - t0 };
  };
  const before = await timed(async () => (await faces.faces(px)).filter(notNestedFace));
  const h285 = await timed(() => faces.facesFound(px, { keepDoubtful: true }));
  const after = await timed(() => faces.facesFound(px));
  const seen: Seen = {
    w: img.originalWidth,
    h: img.originalHeight,
    faces: { before: before.found, h285: h285.found, after: after.found },
    ms: { before: before.ms, h285: h285.ms, after: after.ms },
  };
  if (withPersons) seen.persons = { before: back((await objects.objects(px)).filter((d) => d.name === 'person'), sx, sy), after: back(await objects.persons(px), sx, sy) };
  return seen;
}
const seen = new Map<string, Seen>();
for (const p of photos) seen.set(p.rel, await look(fs.readFileSync(path.join(datasets, p.rel)), true));
const thumbs: { split: string; kind: 'face' | 'caltech'; seen: Seen }[] = [];
for (const p of photos.filter((x) => x.set === 'identity')) {
  const cut = await sharp(path.join(datasets, p.rel)).extract({ left: 20, top: 10, width: 110, height: 130 }).resize(40, 47).jpeg({ quality: 85 }).toBuffer();
  thumbs.push({ split: p.split, kind: 'face', seen: await look(cut, false) });
}
for (const p of photos.filter((x) => x.set === 'caltech')) {
  thumbs.push({ split: p.split, kind: 'caltech', seen: await look(await sharp(path.join(datasets, p.rel)).resize(40, 47, { fit: 'cover' }).png().toBuffer(), false) });
}

function iou(a: readonly number[], b: readonly number[]): number {
  const w = Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!);
  const h = Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / ((a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - w * h);
}
const served = (f: Found) => f.filter((d) => d.prob >= 0.5);
const annotated = new Map(annotatedFaces().images.map((i) => [path.relative(datasets, i.file), i]));
const onePerson = (p: Photo) => p.set === 'identity' || p.set === 'expression' || labels.groups[p.rel]?.people === 1;
const pct = (n: number, d: number) => `${n}/${d} = ${(n / Math.max(1, d)).toFixed(2)}`;

for (const split of ['A', 'B', 'AB']) {
  const inSplit = photos.filter((p) => split.includes(p.split));
  const one = inSplit.filter(onePerson);
  const group = inSplit.filter((p) => p.set === 'group' && !onePerson(p));
  const cal = inSplit.filter((p) => p.set === 'caltech');
  const human = (p: Photo) => p.rel.replace('caltech101_subset/', '') in labels.caltech_showing_a_human;
  console.log(`\n## ${split === 'AB' ? 'all' : split === 'A' ? 'A (tuned on)' : 'B (held out)'}: ${one.length} one-person photos, ${group.length} group photos (${group.reduce((s, p) => s + labels.groups[p.rel]!.people, 0)} people), ${cal.length} Caltech photos (${cal.filter(human).length} showing a human)\n`);
  console.log('| persons | per one-person photo | exactly 1 | group recall | group precision | Caltech: false persons (photos) | Caltech showing a human: boxes (photos) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const when of ['before', 'after'] as const) {
    const n1 = one.map((p) => seen.get(p.rel)!.persons![when].length);
    let tp = 0;
    let kept = 0;
    let people = 0;
    for (const p of group) {
      const lab = labels.groups[p.rel]!;
      people += lab.people;
      for (const d of seen.get(p.rel)!.persons![when]) {
        kept++;
        const match = lab.boxes.find((b) => iou(b.slice(0, 4) as number[], d.bound_box) >= 0.9);
        if (!match) throw new Error(`${p.rel}: box ${d.bound_box.join(',')} is not in test/fixtures/person-labels.json (the detector changed: label again)`);
        if (match[4] === 'T') tp++;
      }
    }
    const falses = cal.filter((p) => !human(p)).map((p) => seen.get(p.rel)!.persons![when].length);
    const humans = cal.filter(human).map((p) => seen.get(p.rel)!.persons![when].length);
    const sum = (a: number[]) => a.reduce((s, x) => s + x, 0);
    console.log(`| ${when} | ${(sum(n1) / n1.length).toFixed(2)} | ${n1.filter((x) => x === 1).length} of ${n1.length} | ${pct(tp, people)} | ${pct(tp, kept)} | ${sum(falses)} (${falses.filter(Boolean).length}) | ${sum(humans)} (${humans.filter(Boolean).length}) |`);
  }
  const noOne = cal.filter((p) => !human(p));
  const buddha = (p: Photo) => p.rel.includes('/buddha/');
  const doubtful = inSplit.filter((p) => served(seen.get(p.rel)!.faces.h285).some((d) => d.prob < 0.8));
  console.log(`\n${noOne.length} Caltech photos of no one (${noOne.filter(buddha).length} of Buddha statues), ${cal.length - noOne.length} showing a human (on which BlazeFace finds ${cal.filter(human).reduce((s, p) => s + (labels.caltech_human_faces[p.rel.replace('caltech101_subset/', '')] ?? 0), 0)} real faces); ${doubtful.length} of ${inSplit.length} photos with a face at 0.5–0.8`);
  console.log('\n| faces (prob ≥ 0.5) | annotated, IoU 0.4: recall / precision (TP/FP/FN) | IoU 0.5 | headshots: one / more / none | Caltech of no one: photos with a face (boxes) | the same without Buddha statues | Caltech showing a human: real faces answered | 40 × 47 headshot cuts: found / more than one | 40 × 47 Caltech thumbnails with a face | ms per photo, p50: all / with a face at 0.5–0.8 |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const when of faceRuns) {
    const scored = [0.4, 0.5].map((minIou) => {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (const p of inSplit) {
        const a = annotated.get(p.rel);
        if (!a) continue;
        const s = scoreFaces(a.faces, seen.get(p.rel)!.faces[when], 0.5, minIou);
        tp += s.tp;
        fp += s.fp;
        fn += s.fn;
      }
      return `${(tp / (tp + fn)).toFixed(3)} / ${(tp / (tp + fp)).toFixed(3)} (${tp}/${fp}/${fn})`;
    });
    const heads = inSplit.filter((p) => p.set === 'identity').map((p) => served(seen.get(p.rel)!.faces[when]).length);
    const falseFaces = (ps: Photo[]) => {
      const n = ps.map((p) => served(seen.get(p.rel)!.faces[when]).length);
      return `${n.filter(Boolean).length} of ${ps.length} (${n.reduce((s, x) => s + x, 0)})`;
    };
    // the by-eye count says how many of a photo's boxes are real faces (every box there was looked at, h289)
    const byEye = (p: Photo) => labels.caltech_human_faces[p.rel.replace('caltech101_subset/', '')] ?? 0;
    const answered = cal.filter(human).map((p) => [served(seen.get(p.rel)!.faces[when]).length, byEye(p)] as const);
    const real = answered.reduce((s, [n, e]) => s + Math.min(n, e), 0);
    const humanFaces = `${real} of ${answered.reduce((s, [, e]) => s + e, 0)} (+${answered.reduce((s, [n, e]) => s + n - Math.min(n, e), 0)} not faces)`;
    const median = (xs: number[]) => {
      const v = [...xs].sort((a, b) => a - b);
      return v.length ? (v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2) : NaN;
    };
    const ms = `${median(inSplit.map((p) => seen.get(p.rel)!.ms[when])).toFixed(0)} / ${median(doubtful.map((p) => seen.get(p.rel)!.ms[when])).toFixed(0)}`;
    const cuts = thumbs.filter((t) => t.kind === 'face' && split.includes(t.split)).map((t) => served(t.seen.faces[when]).length);
    const calThumbs = thumbs.filter((t) => t.kind === 'caltech' && split.includes(t.split));
    console.log(`| ${faceRunName[when]} | ${scored[0]} | ${scored[1]} | ${heads.filter((x) => x === 1).length} / ${heads.filter((x) => x > 1).length} / ${heads.filter((x) => x === 0).length} of ${heads.length} | ${falseFaces(noOne)} | ${falseFaces(noOne.filter((p) => !buddha(p)))} | ${humanFaces} | ${cuts.filter(Boolean).length} / ${cuts.filter((x) => x > 1).length} of ${cuts.length} | ${calThumbs.filter((t) => served(t.seen.faces[when]).length).length} of ${calThumbs.length} | ${ms} |`);
  }
}
