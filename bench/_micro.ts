import fs from 'node:fs';
import { decodeRgb } from '../src/media/decode-rgb.ts';
import { reduceJpeg, jpegReduceAvailable } from '../src/media/jpeg-reduce.ts';
import { visualHashes, hammingDistance } from '../src/vision/models/visual-hash.ts';
const jpegs = Array.from({ length: 40 }, (_, i) => fs.readFileSync(`/tmp/jt/${i}.jpg`));
console.log('available', jpegReduceAvailable());
async function seq(label: string, f: (b: Buffer) => Promise<unknown>) {
  for (let i = 0; i < 20; i++) await f(jpegs[i % jpegs.length]!);
  const c0 = process.cpuUsage(); const t0 = performance.now(); const N = 400;
  for (let i = 0; i < N; i++) await f(jpegs[i % jpegs.length]!);
  const t = (performance.now() - t0) / N; const c = process.cpuUsage(c0);
  console.log(label, 'wall', t.toFixed(2), 'ms cpu', ((c.user + c.system) / 1000 / N).toFixed(2), 'ms');
}
await seq('decodeRgb 128', (b) => decodeRgb(b, 100e6, { maxEdge: 128 }));
await seq('reduceJpeg 128', (b) => reduceJpeg(b, 100e6, 128));
let dmax = 0, pmax = 0, dsum = 0, psum = 0;
for (const b of jpegs) {
  const a = await decodeRgb(b, 100e6, { maxEdge: 128 }); const f = (await reduceJpeg(b, 100e6, 128))!;
  const ha = visualHashes(a.data, a.width, a.height, 3), hf = visualHashes(f.data, f.width, f.height, 3);
  const d1 = hammingDistance(ha.bmh1!, hf.bmh1!), d2 = hammingDistance(ha.phash!, hf.phash!);
  dmax = Math.max(dmax, d1); pmax = Math.max(pmax, d2); dsum += d1; psum += d2;
}
console.log('bmh1 dist sharp vs fast: max', dmax, 'mean', dsum / 40, ' phash max', pmax, 'mean', psum / 40);
