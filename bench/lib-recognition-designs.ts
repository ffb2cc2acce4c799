/**
 * The reference designs of ../shared/datasets (207 SV151 and 22 MTG scans), split into quarters by a
 * hash of their id, and one generated photo of each: shared by the recognition bench and the
 * development script (`scripts/recognition-dev.ts` with `SET=generated`, the tune quarter only).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { makeScene } from '../test/helpers/card-scenes.ts';
import { seededRandom } from '../src/util/seeded-random.ts';
import { photoOptions } from './lib-card-scenes.ts';

export interface Design {
  id: string;
  file: string;
  kind: 'pokemon' | 'mtg';
  quarter: 'tune' | 'held-out' | 'out';
}

const quarterOf = (id: string): Design['quarter'] => {
  const q = createHash('sha1').update(id).digest()[0]! % 4;
  return q < 2 ? 'tune' : q === 2 ? 'held-out' : 'out';
};

export function referenceDesigns(datasets: string): Design[] {
  const sv151 = (JSON.parse(fs.readFileSync(path.join(datasets, 'pokemon_sv151_reference/manifest.json'), 'utf8')) as { files: { file: string; labels: { pokemontcg_io_id: string } }[] }).files;
  const mtg = (JSON.parse(fs.readFileSync(path.join(datasets, 'mtg_gatherer_reference/manifest.json'), 'utf8')) as { files: { file: string; labels: { multiverse_id: string } }[] }).files.filter((f) => f.file.startsWith('cards/'));
  return [
    ...sv151.map((f) => ({ id: f.labels.pokemontcg_io_id, file: path.join(datasets, 'pokemon_sv151_reference', f.file), kind: 'pokemon' as const, quarter: quarterOf(f.labels.pokemontcg_io_id) })),
    // MTG cards are never removed from their catalog: the out quarter's MTG designs count as held out
    ...mtg.map((f) => ({ id: f.labels.multiverse_id, file: path.join(datasets, 'mtg_gatherer_reference', f.file), kind: 'mtg' as const, quarter: quarterOf(f.labels.multiverse_id) === 'out' ? ('held-out' as const) : quarterOf(f.labels.multiverse_id) })),
  ];
}

/** One scene per design (tilt, perspective, light, blur, noise, a Caltech photo behind, a sleeve on one in five), the same for every caller: scene `i` depends on the design's place in the full list only. */
export async function generatedScenes(designs: Design[], datasets: string, keep: (d: Design) => boolean = () => true): Promise<{ design: Design; jpeg: Buffer }[]> {
  const caltech = path.join(datasets, 'caltech101_subset');
  const backgrounds = fs.readdirSync(caltech, { recursive: true }).map(String).filter((f) => f.endsWith('.jpg')).sort();
  const rand = seededRandom(18_07);
  const scenes: { design: Design; jpeg: Buffer }[] = [];
  for (const [i, d] of designs.entries()) {
    const spec = { width: 630, height: 880, margins: [0, 0, 0, 0] as [number, number, number, number], border: [0, 0, 0] as [number, number, number], face: fs.readFileSync(d.file) };
    // drawn for every design, kept or not, so that the random sequence stays the bench's
    const options = { ...photoOptions(rand, fs.readFileSync(path.join(caltech, backgrounds[(i * 7) % backgrounds.length]!))), ...(i % 5 === 4 ? { holder: 'sleeve' as const } : {}) };
    if (!keep(d)) continue;
    const scene = await makeScene(spec, 18_000 + i, options);
    scenes.push({ design: d, jpeg: await sharp(Buffer.from(scene.image.data), { raw: { width: scene.image.width, height: scene.image.height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer() });
  }
  return scenes;
}
