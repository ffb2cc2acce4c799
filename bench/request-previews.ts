/**
 * What a finished request's previews cost (h365, LOUPE_REQUEST_PREVIEWS):
 *  - bytes: the 512-px JPEG of every real card photo of ../shared/datasets/real_card_photos, made as the vision worker
 *    makes it (the photo decoded as the card task decodes it, then resized and encoded), per source folder; and the
 *    resize and encode's own time;
 *  - time: one-record `collectibles-recognition` requests (`card_ocr_id`, no catalog needed) of BENCH_PHOTOS phone
 *    photos, submit → DONE on an in-process server (SQLite, one queue slot, one vision thread), previews on and off
 *    for each photo in turn (on, off, off, on, …: neither side always goes first), so both see the same load.
 *
 *   npm run bench -- request-previews
 *   BENCH_PHOTOS=40 npm run bench -- request-previews
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import type { Services } from '../src/services/container.ts';
import { decodeCardPhoto, previewOf } from '../src/vision/cards/card-tasks.ts';
import { median } from './lib-server.ts';

const root = path.resolve(import.meta.dirname, '../../shared/datasets/real_card_photos');
const photos = Number(process.env.BENCH_PHOTOS ?? 20);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const kb = (x: number) => (x / 1000).toFixed(1);

console.log(`# request previews — ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);

const folders = (await fs.readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const all: number[] = [];
const encodeMs: number[] = [];
// photos brought down to 512 px, and those already smaller, kept at their own size
const shrunk: number[] = [];
const kept: number[] = [];
console.log('| source | photos | preview bytes: mean | median | p95 | largest | preview size (most common) |');
console.log('|---|---|---|---|---|---|---|');
for (const folder of folders) {
  const files = (await fs.readdir(path.join(root, folder), { recursive: true })).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
  const sizes: number[] = [];
  const shapes = new Map<string, number>();
  for (const f of files) {
    const img = await decodeCardPhoto(await fs.readFile(path.join(root, folder, f)), 64_500_000);
    const t0 = performance.now();
    const p = await previewOf({ data: img.data, width: img.width, height: img.height }, 512);
    encodeMs.push(performance.now() - t0);
    sizes.push(p.jpeg.byteLength);
    (Math.max(p.width, p.height) === 512 ? shrunk : kept).push(p.jpeg.byteLength);
    shapes.set(`${p.width}×${p.height}`, (shapes.get(`${p.width}×${p.height}`) ?? 0) + 1);
  }
  all.push(...sizes);
  const common = [...shapes].sort((a, b) => b[1] - a[1])[0]![0];
  console.log(`| ${folder} | ${sizes.length} | ${kb(mean(sizes))} KB | ${kb(median(sizes))} KB | ${kb(pct(sizes, 0.95))} KB | ${kb(Math.max(...sizes))} KB | ${common} |`);
}
console.log(`| all | ${all.length} | ${kb(mean(all))} KB | ${kb(median(all))} KB | ${kb(pct(all, 0.95))} KB | ${kb(Math.max(...all))} KB | |`);
console.log(`| all, long edge brought to 512 | ${shrunk.length} | ${kb(mean(shrunk))} KB | ${kb(median(shrunk))} KB | ${kb(pct(shrunk, 0.95))} KB | ${kb(Math.max(...shrunk))} KB | |`);
console.log(`| all, under 512 (own size) | ${kept.length} | ${kb(mean(kept))} KB | ${kb(median(kept))} KB | ${kb(pct(kept, 0.95))} KB | ${kb(Math.max(...kept))} KB | |`);
console.log(`\nresize and encode from the decoded photo: median ${median(encodeMs).toFixed(1)} ms, p95 ${pct(encodeMs, 0.95).toFixed(1)} ms (this thread, no other work beside it)\n`);

// phone photos of one to a few cards (the folder of video stills is 512-px squares already)
const shrey = path.join(root, 'shrey_pokemon_card_outliner');
const phone = (await fs.readdir(shrey, { recursive: true })).filter((f) => /\.jpe?g$/i.test(f)).sort();
const chosen = Array.from({ length: Math.min(photos, phone.length) }, (_, i) => phone[Math.floor((i * phone.length) / photos)]!);
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-previews-'));
const config = loadConfig({}, { dataDir, logLevel: 'warn', rateLimit: { perSecond: 0, burst: 0 }, queue: { workers: 1, pollMs: 20 }, vision: { threads: 1, warm: ['card'] } });
const app = await buildApp(config);
try {
  const services = app.loupe as unknown as Services;
  const { token } = await services.accounts.createAccount({ name: 'bench', credits: 1_000_000 });
  const runner = services.queue.runner as unknown as { options: { previewEdge?: number } };
  const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
  const once = async (file: string, edge: number): Promise<number> => {
    runner.options.previewEdge = edge;
    const body = JSON.stringify({ type: 'collectibles-recognition', endpoint: 'card_ocr_id', records: [{ _base64: (await fs.readFile(path.join(shrey, file))).toString('base64') }] });
    const t0 = performance.now();
    const sent = await app.inject({ method: 'POST', url: '/account/v2/request/', headers, payload: body });
    if (sent.statusCode !== 201) throw new Error(sent.body);
    const id = sent.json().id as string;
    for (;;) {
      const status = (await app.inject({ method: 'GET', url: `/account/v2/request/${id}/status`, headers })).json().status as string;
      if (status === 'DONE') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const took = performance.now() - t0;
    const previews = (await app.inject({ method: 'GET', url: `/account/v2/request/${id}/previews`, headers })).json().previews as unknown[];
    if (previews.length !== (edge ? 1 : 0)) throw new Error(`request ${id}: ${previews.length} previews with the edge at ${edge}`);
    return took;
  };
  // a first request of each kind, not counted: the models' first runs
  await once(chosen[0]!, 512);
  await once(chosen[0]!, 0);
  const on: number[] = [];
  const off: number[] = [];
  for (const [i, file] of chosen.entries()) {
    if (i % 2 === 0) {
      on.push(await once(file, 512));
      off.push(await once(file, 0));
    } else {
      off.push(await once(file, 0));
      on.push(await once(file, 512));
    }
  }
  const deltas = on.map((t, i) => t - off[i]!);
  console.log(`submit → DONE, ${chosen.length} phone photos each way (one-record card_ocr_id requests, one queue slot, one vision thread):`);
  console.log(`  previews on:  mean ${mean(on).toFixed(0)} ms, median ${median(on).toFixed(0)} ms`);
  console.log(`  previews off: mean ${mean(off).toFixed(0)} ms, median ${median(off).toFixed(0)} ms`);
  console.log(`  on − off, the same photo: mean ${mean(deltas).toFixed(1)} ms, median ${median(deltas).toFixed(1)} ms, p10 ${pct(deltas, 0.1).toFixed(1)} / p90 ${pct(deltas, 0.9).toFixed(1)} ms`);
} finally {
  await app.close();
  await fs.rm(dataDir, { recursive: true, force: true });
}
console.log(`\nload after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
