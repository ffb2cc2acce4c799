/**
 * `/tcg_id`'s time per photo, this checkout against another (`BASE=<path of a second clone>`, e.g. one
 * at origin/main), on the train split only: both servers run at once, each photo is sent to one and
 * then the other (who goes first alternates), so that both see the same load on a shared machine, where
 * runs of the same code one after the other moved by half. Each photo's answer records must be equal
 * on both sides (the request id left out): a change meant to be faster and nothing else is checked so.
 *
 *   BASE=/tmp/old-clone npx tsx scripts/recognition-paired-time.ts
 *
 * Env: PASSES (3 by default); WIDTH=310 for the listing-size train photos only, as in recognition-dev.
 * Prints each side's p50 / p90 over every pass, and the median of each photo's difference.
 */
import fs from 'node:fs';
import path from 'node:path';
import type * as BenchServers from '../bench/lib-server.ts';
import type * as Processes from '../test/helpers/processes.ts';

const here = path.resolve(import.meta.dirname, '..');
const base = process.env.BASE;
if (!base) throw new Error('BASE=<path of the checkout to compare with> is required');
const shared = path.resolve(here, '../shared');
const datasets = path.join(shared, 'datasets');
const catalogs = path.join(shared, 'catalogs');
interface Photo { file: string; split: string | null; width: number; set?: string }
const photos = (JSON.parse(fs.readFileSync(path.join(here, 'test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Photo[] }).photos.filter(
  (p) => p.split === 'train' && p.set !== 'slab' && (!process.env.WIDTH || p.width === Number(process.env.WIDTH)),
);

type Server = BenchServers.BenchServer;
/** A checkout's own server and command line: each side runs its own code. */
async function side(root: string): Promise<{ server: Server; name: string }> {
  const { startServer } = (await import(path.join(root, 'bench/lib-server.ts'))) as typeof BenchServers;
  const { loupeCli } = (await import(path.join(root, 'test/helpers/processes.ts'))) as typeof Processes;
  const server = await startServer('sqlite', { LOUPE_FILE_ROOT: datasets });
  const cli = (...args: string[]) => loupeCli({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '' }, ...args);
  await cli('catalog', 'import', '--kind', 'pokemon', '--cards', path.join(catalogs, 'pokemon/cards.json'), '--sets', path.join(catalogs, 'pokemon/sets.json'));
  await cli('catalog', 'import', '--kind', 'mtg', '--cards', path.join(catalogs, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(catalogs, 'mtg/mtgjson_sets.json'));
  return { server, name: root };
}

async function tcgId(server: Server, file: string): Promise<{ ms: number; record: string }> {
  const t0 = performance.now();
  const res = await fetch(`${server.url}/collectibles/v2/tcg_id`, { method: 'POST', headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ _file: file }] }) });
  const body = (await res.json()) as { records: { _status: Record<string, unknown> }[] };
  const ms = performance.now() - t0;
  const { request_id: _id, ...status } = body.records[0]!._status;
  return { ms, record: JSON.stringify({ ...body.records[0], _status: status }) };
}

const sides = [await side(here), await side(path.resolve(base))];
try {
  const ms: number[][] = [[], []];
  const diff: number[] = [];
  let unequal = 0;
  const passes = Number(process.env.PASSES ?? 3);
  for (let pass = 0; pass < passes; pass++) {
    for (const [i, p] of photos.entries()) {
      // who goes first alternates, photo by photo and pass by pass
      const order = (i + pass) % 2 === 0 ? [0, 1] : [1, 0];
      const got: { ms: number; record: string }[] = [];
      for (const k of order) got[k] = await tcgId(sides[k]!.server, p.file);
      ms[0]!.push(got[0]!.ms);
      ms[1]!.push(got[1]!.ms);
      diff.push(got[0]!.ms - got[1]!.ms);
      if (got[0]!.record !== got[1]!.record) {
        unequal++;
        console.log(`answers differ: ${p.file}\n  this: ${got[0]!.record}\n  base: ${got[1]!.record}`);
      }
    }
  }
  const q = (xs: number[], f: number) => Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * f))]!);
  console.log(`${photos.length} train photos × ${passes} passes; answers differing: ${unequal}`);
  for (const [k, s] of sides.entries()) console.log(`${k === 0 ? 'this checkout' : `base (${s.name})`}: p50 ${q(ms[k]!, 0.5)} ms, p90 ${q(ms[k]!, 0.9)} ms`);
  console.log(`this − base, each photo: median ${q(diff, 0.5)} ms (quartiles ${q(diff, 0.25)} / ${q(diff, 0.75)} ms)`);
} finally {
  for (const s of sides) await s.server.stop();
}
