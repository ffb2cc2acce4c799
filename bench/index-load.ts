/**
 * `npm run bench -- index-load`: one collection's load by the embedded backend (`EmbeddedCollectionQueries.load`: its
 * attributes, its vectors into the exact-search arena, its saved graph), in a process of its own, as a restarted
 * server does it after its port opens; and what the load costs the event loop. The folder is bench/start-up.ts's
 * (`BENCH_DIR`, made there first: `BENCH_RECORDS=100000 BENCH_DIR=<folder> npm run bench -- start-up`), read as it is:
 * a load with nothing to replay writes nothing.
 *
 * Per run: the load's time; the CPU of the event loop's thread (Linux: /proc/<pid>/task/<pid>/schedstat) and of the
 * whole process (its worker threads too); and the longest gap between the ticks of a 1-ms timer, with the event loop's
 * CPU in it (a gap with little CPU is the thread waiting for a core on a busy machine, not work holding the loop).
 *
 *   BENCH_BEFORE=<an older checkout>   its load too, the two in turn, run by run (a release before a change beside it)
 *   BENCH_RUNS                         rounds (3)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { median } from './lib-server.ts';
import type * as Database from '../src/store/database.ts';
import type * as Collections from '../src/store/collection-store.ts';
import type * as Queries from '../src/index/embedded-collection-queries.ts';

interface Result {
  ms: number;
  loopCpu: number;
  processCpu: number;
  gaps: { wall: number; cpu: number }[];
}

if (process.env.INDEX_LOAD_CHILD) await child();
else await parent();

async function parent(): Promise<void> {
  const dataDir = process.env.BENCH_DIR;
  if (!dataDir || !fs.existsSync(path.join(dataDir, 'start-up-bench.json'))) throw new Error('BENCH_DIR: a folder bench/start-up.ts made');
  const roots = [...(process.env.BENCH_BEFORE ? [path.resolve(process.env.BENCH_BEFORE)] : []), path.resolve(import.meta.dirname, '..')];
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const results = new Map<string, Result[]>(roots.map((r) => [r, []]));
  for (let i = 0; i < runs; i++) {
    for (const root of roots) {
      const r = await once(root, dataDir);
      results.get(root)!.push(r);
      const [g1, g2] = r.gaps;
      console.log(`${root} run ${i + 1}: loaded in ${r.ms.toFixed(0)} ms; CPU: event loop ${r.loopCpu.toFixed(0)} ms, process ${r.processCpu.toFixed(0)} ms; longest gaps ${g1 ? `${g1.wall}/${g1.cpu}` : '-'}, ${g2 ? `${g2.wall}/${g2.cpu}` : '-'} ms (wall/CPU)`);
    }
  }
  const { records } = JSON.parse(fs.readFileSync(path.join(dataDir, 'start-up-bench.json'), 'utf8')) as { records: number };
  console.log(`\n${records.toLocaleString('en')} records, median of ${runs}\n\n| checkout | load | event loop CPU | process CPU | longest gap (wall / its CPU) |\n|---|---|---|---|---|`);
  for (const [root, rs] of results) {
    const longest = rs.map((r) => r.gaps[0] ?? { wall: 0, cpu: 0 }).sort((a, b) => a.wall - b.wall)[Math.floor(rs.length / 2)]!;
    console.log(`| ${root} | ${median(rs.map((r) => r.ms)).toFixed(0)} ms | ${median(rs.map((r) => r.loopCpu)).toFixed(0)} ms | ${median(rs.map((r) => r.processCpu)).toFixed(0)} ms | ${longest.wall} / ${longest.cpu} ms |`);
  }
}

function once(root: string, dataDir: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', import.meta.filename], { env: { ...process.env, INDEX_LOAD_CHILD: '1', INDEX_LOAD_ROOT: root, BENCH_DIR: dataDir }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Result) : reject(new Error(`${root}: exit ${code}`))));
  });
}

/** In its own process: the checkout's own modules (`INDEX_LOAD_ROOT`) load the folder's collection once. */
async function child(): Promise<void> {
  const root = process.env.INDEX_LOAD_ROOT!;
  const dataDir = process.env.BENCH_DIR!;
  const { collection } = JSON.parse(fs.readFileSync(path.join(dataDir, 'start-up-bench.json'), 'utf8')) as { collection: string };
  const { openStore } = (await import(path.join(root, 'src/store/database.ts'))) as typeof Database;
  const { CollectionStore } = (await import(path.join(root, 'src/store/collection-store.ts'))) as typeof Collections;
  const { EmbeddedCollectionQueries } = (await import(path.join(root, 'src/index/embedded-collection-queries.ts'))) as typeof Queries;
  const stat = `/proc/${process.pid}/task/${process.pid}/schedstat`;
  const loopCpu = () => Number(fs.readFileSync(stat, 'utf8').split(' ')[0]) / 1e6;
  const store = await openStore({ dataDir, warn: () => {} });
  const cs = new CollectionStore(store);
  const c = (await cs.get(collection))!;
  const q = new EmbeddedCollectionQueries(cs, path.join(dataDir, 'indexes'));
  const gaps: { wall: number; cpu: number }[] = [];
  let last = performance.now();
  let lastCpu = loopCpu();
  const tick = setInterval(() => {
    const now = performance.now();
    const cpu = loopCpu();
    if (now - last > 20) gaps.push({ wall: Math.round(now - last), cpu: Math.round(cpu - lastCpu) });
    last = now;
    lastCpu = cpu;
  }, 1);
  const [t0, cpu0, all0] = [performance.now(), loopCpu(), process.cpuUsage()];
  await q.load(c);
  const [ms, cpu, all] = [performance.now() - t0, loopCpu() - cpu0, process.cpuUsage(all0)];
  // the tick after the load's last step
  await new Promise((r) => setTimeout(r, 50));
  clearInterval(tick);
  await q.close();
  await store.close();
  gaps.sort((a, b) => b.wall - a.wall);
  console.log(JSON.stringify({ ms, loopCpu: cpu, processCpu: (all.user + all.system) / 1000, gaps: gaps.slice(0, 5) } satisfies Result));
}
