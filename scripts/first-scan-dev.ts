/**
 * The first scans after a server start, against the same photos sent again: what a shop's first
 * `/tcg_id` of the day costs beyond the rest (docs/recognition.md, "The first scan after a start").
 * The Pokémon catalog is imported, the server stopped and started again on that data with the
 * default warm-up, then each photo is sent in turn, one request at a time.
 *
 *   npx tsx scripts/first-scan-dev.ts
 *
 * Env: FILES (comma-separated prefixes of real_card_photos' Shrey file names; a prefix may repeat);
 * SAME=1 keeps the server the catalog was imported into (the bench's first call: its catalog's sets
 * are then read in that first request).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loupeCli, randomPort, startServerProcess } from '../test/helpers/processes.ts';
import { startServer } from '../bench/lib-server.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
const server = await startServer('sqlite', { LOUPE_FILE_ROOT: datasets, LOUPE_VISION_WARM: 'all' });
const cli = (...args: string[]) => loupeCli({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '' }, ...args);
let restarted: Awaited<ReturnType<typeof startServerProcess>> | undefined;
try {
  await cli('catalog', 'import', '--kind', 'pokemon', '--cards', path.join(shared, 'catalogs/pokemon/cards.json'), '--sets', path.join(shared, 'catalogs/pokemon/sets.json'));
  let url = server.url;
  if (!process.env.SAME) {
    process.kill(server.pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 3000));
    restarted = await startServerProcess({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', LOUPE_FILE_ROOT: datasets, LOUPE_VISION_WARM: 'all' }, randomPort());
    url = restarted.url;
  }
  const dir = path.join(datasets, 'real_card_photos/shrey_pokemon_card_outliner');
  const names = fs.readdirSync(dir);
  const prefixes = (process.env.FILES ?? '1730716790_jpg,1730716790_jpg,416064070_901419804749949_3016,416064070_901419804749949_3016').split(',');
  for (const prefix of prefixes) {
    const file = names.find((f) => f.startsWith(prefix));
    if (!file) throw new Error(`no photo ${prefix}`);
    const t0 = performance.now();
    const res = await fetch(`${url}/collectibles/v2/tcg_id`, { method: 'POST', headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ _base64: fs.readFileSync(path.join(dir, file)).toString('base64') }] }) });
    const body = (await res.json()) as { records: { _objects?: { _identification: { best_match: { id: string } | null } }[] }[] };
    console.log(`${file.slice(0, 30)}  ${Math.round(performance.now() - t0)} ms  ${body.records[0]?._objects?.[0]?._identification.best_match?.id ?? '-'}`);
  }
} finally {
  restarted?.child.kill('SIGTERM');
  await restarted?.exited;
  await server.stop().catch(() => undefined);
}
