/**
 * Large identification batches must not stall the server (issue 16, item 12). One client sends
 * the largest batch the limits allow (rows × grading per row) while another pings /health every
 * 20 ms; then eight such clients at once. Then sixteen image bodies of 20 MiB at once (15 MiB of
 * bytes in base64, as a descriptor call carries a photo; random bytes, so the server refuses each
 * after reading it: what is timed is the body's handling, not a model). Figures: the upload's time,
 * /health's worst and p99 latency against its idle latency measured in the same run, and the
 * server's peak memory.
 *
 *   npm run bench -- big-uploads                 # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_ROWS=1000 BENCH_GRADING_KB=57 npm run bench -- big-uploads   # the 55 MiB batch
 *   BENCH_PARTS=images npm run bench -- big-uploads                    # the image bodies only
 *
 * Part `requests` (h286): one asynchronous submit of BENCH_REQUEST_MB (44) of images inline, two records, with an
 * Idempotency-Key, pinged from its start until the server's own worker has it DONE (the images, random bytes, fail to
 * decode at once: what is timed is their decoding, hashing, storing, reading back and deleting, not a model).
 *
 *   BENCH_PARTS=requests npm run bench -- big-uploads
 */
import fs from 'node:fs';
import { startServer, type BenchServer } from './lib-server.ts';

const backends = (process.env.BENCH_BACKENDS?.split(',') ?? (process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'])) as Array<'sqlite' | 'postgres'>;
const rows = Number(process.env.BENCH_ROWS ?? 1000);
const gradingKb = Number(process.env.BENCH_GRADING_KB ?? 15);
const concurrent = Number(process.env.BENCH_CONCURRENT ?? 8);
const parts = new Set(process.env.BENCH_PARTS?.split(',') ?? ['batches', 'images', 'requests']);
const requestMB = Number(process.env.BENCH_REQUEST_MB ?? 44);
const images = Number(process.env.BENCH_IMAGES ?? 16);
const imageMiB = Number(process.env.BENCH_IMAGE_MIB ?? 15);

function batch(prefix: string): string {
  // Grading of realistic shape, padded with many small numeric fields to the asked size.
  const fields = Math.max(1, Math.floor((gradingKb * 1024) / 24));
  const detail = Object.fromEntries(Array.from({ length: fields }, (_, i) => [`m${i}`, Math.round(i * 1.37 * 1000) / 1000]));
  return JSON.stringify({
    identifications: Array.from({ length: rows }, (_, i) => ({
      event_id: `${prefix}-${i}`,
      name: `Card ${i}`,
      price: 1.5,
      grading: { grades: { final: 8.5, corners: 9, edges: 8, surface: 8.5, centering: 9 }, detail },
    })),
  });
}

async function session(s: BenchServer): Promise<string> {
  const res = await fetch(`${s.url}/cardstream/v2/session/`, { method: 'POST', headers: { authorization: `Token ${s.token}`, 'content-type': 'application/json' }, body: '{"name":"big"}' });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${await res.text()}`);
  return (await res.json()).id as string;
}

/** Pings /health every 20 ms until stopped; returns each answer's latency in ms. */
function pinger(s: BenchServer): { stop(): Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await (await fetch(`${s.url}/health`)).text();
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return { stop: async () => ((running = false), await loop, times) };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function upload(s: BenchServer, sid: string, body: string, path = `/cardstream/v2/session/${sid}/identifications/`): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { authorization: `Token ${s.token}`, 'content-type': 'application/json' }, body });
  await res.text();
  return { status: res.status, ms: performance.now() - t0 };
}

async function batches(s: BenchServer, sid: string, idleTimes: number[]): Promise<void> {
  const bodies = Array.from({ length: concurrent }, (_, i) => batch(`b${i}`));
  const mib = Buffer.byteLength(bodies[0]!) / 1024 / 1024;
  const one = pinger(s);
  const single = await upload(s, sid, bodies[0]!);
  const oneTimes = await one.stop();

  const many = pinger(s);
  const t0 = performance.now();
  const results = await Promise.all(bodies.slice(1).map((b) => upload(s, sid, b)));
  const manyMs = performance.now() - t0;
  const manyTimes = await many.stop();
  const statuses = results.reduce<Record<number, number>>((m, r) => ((m[r.status] = (m[r.status] ?? 0) + 1), m), {});

  console.log(`  ${rows} rows × ${gradingKb} KiB grading = ${mib.toFixed(1)} MiB per batch`);
  console.log(`  one batch                 ${single.ms.toFixed(0)} ms (HTTP ${single.status}); /health p99 ${pct(oneTimes, 0.99).toFixed(0)} ms, max ${Math.max(...oneTimes).toFixed(0)} ms (${(Math.max(...oneTimes) / pct(idleTimes, 0.5)).toFixed(0)}× idle p50)`);
  console.log(`  ${bodies.length - 1} batches at once        ${manyMs.toFixed(0)} ms (HTTP ${JSON.stringify(statuses)}); /health p99 ${pct(manyTimes, 0.99).toFixed(0)} ms, max ${Math.max(...manyTimes).toFixed(0)} ms`);
}

/** Sixteen image bodies at once: one body's text for all, random bytes that no decoder takes for an image. */
async function imageBodies(s: BenchServer, sid: string, idleTimes: number[]): Promise<void> {
  const bytes = Buffer.alloc(imageMiB * 1024 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = ((i * 2654435761) >>> 24) & 255;
  const body = JSON.stringify({ records: [{ _base64: bytes.toString('base64') }] });
  const ping = pinger(s);
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: images }, () => upload(s, sid, body, '/photo/v2/descriptor')));
  const ms = performance.now() - t0;
  const times = await ping.stop();
  const statuses = results.reduce<Record<number, number>>((m, r) => ((m[r.status] = (m[r.status] ?? 0) + 1), m), {});
  console.log(`  ${images} image bodies of ${(Buffer.byteLength(body) / 1024 / 1024).toFixed(1)} MiB at once: ${ms.toFixed(0)} ms (HTTP ${JSON.stringify(statuses)}); /health p99 ${pct(times, 0.99).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (${(Math.max(...times) / pct(idleTimes, 0.5)).toFixed(0)}× idle p50)`);
}

/** One asynchronous submit of two large images inline, pinged until its job is DONE. */
async function requestBody(s: BenchServer, idleTimes: number[]): Promise<void> {
  const perImage = Math.floor((requestMB * 1e6 * 0.75) / 2);
  const bytes = Buffer.alloc(perImage);
  for (let i = 0; i < bytes.length; i++) bytes[i] = ((i * 2654435761) >>> 24) & 255;
  const b64 = bytes.toString('base64');
  const body = JSON.stringify({ type: 'upscaler', endpoint: 'upscale_2x', records: [{ _id: 'a', _base64: b64 }, { _id: 'b', _base64: b64 }] });
  const ping = pinger(s);
  const t0 = performance.now();
  const res = await fetch(`${s.url}/account/v2/request/`, { method: 'POST', headers: { authorization: `Token ${s.token}`, 'content-type': 'application/json', 'idempotency-key': `bench-${Date.now()}` }, body });
  const { id } = (await res.json()) as { id: string };
  const submitMs = performance.now() - t0;
  const submitTimes = [...(await ping.stop())];
  const job = pinger(s);
  for (let state = ''; state !== 'DONE'; await new Promise((r) => setTimeout(r, 50))) {
    state = ((await (await fetch(`${s.url}/account/v2/request/${id}/status`, { headers: { authorization: `Token ${s.token}` } })).json()) as { status: string }).status;
  }
  const doneMs = performance.now() - t0;
  const jobTimes = await job.stop();
  console.log(`  async submit of ${(Buffer.byteLength(body) / 1e6).toFixed(0)} MB (2 images): ${submitMs.toFixed(0)} ms (HTTP ${res.status}); /health p99 ${pct(submitTimes, 0.99).toFixed(0)} ms, max ${Math.max(...submitTimes).toFixed(0)} ms (${(Math.max(...submitTimes) / pct(idleTimes, 0.5)).toFixed(0)}× idle p50)`);
  console.log(`  its job, to DONE at ${doneMs.toFixed(0)} ms: /health p99 ${pct(jobTimes, 0.99).toFixed(0)} ms, max ${Math.max(...jobTimes).toFixed(0)} ms`);
}

for (const backend of backends) {
  const s = await startServer(backend, { LOUPE_VISION_WARM: 'none' });
  try {
    const sid = await session(s);
    const idle = pinger(s);
    await new Promise((r) => setTimeout(r, 1500));
    const idleTimes = await idle.stop();
    console.log(`\n${backend}: idle /health p50 ${pct(idleTimes, 0.5).toFixed(1)} ms, max ${Math.max(...idleTimes).toFixed(1)} ms`);
    if (parts.has('batches')) await batches(s, sid, idleTimes);
    if (parts.has('images')) await imageBodies(s, sid, idleTimes);
    if (parts.has('requests')) await requestBody(s, idleTimes);
    console.log(`  server peak RSS           ${peakRssMiB(s.pid).toFixed(0)} MiB`);
  } finally {
    await s.stop();
  }
}
