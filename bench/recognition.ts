/**
 * `npm run bench -- recognition`: `/collectibles/v2/tcg_id` on real photos, through the real
 * server process (SQLite), against the full Pokémon catalog of ../shared/catalogs.
 *
 * The photos are those of ../shared/datasets/real_card_photos whose identity was labelled by eye
 * in test/fixtures/recognition/real-identities.json (printed number, catalog card or none).
 * Validation first: the rules of identification were set on the train split only.
 *
 * Counted per photo of a card in the catalog: identified right (best_match is the labelled
 * card), wrong (another card), no match, and whether the right card is among the best match and
 * the alternatives; per photo of a card not in the catalog: whether a best match was given
 * (it should not be). Time per request, one at a time, with the first call after start apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loupeCli } from '../test/helpers/processes.ts';
import { startServer } from './lib-server.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
const catalogs = path.join(shared, 'catalogs');
if (!fs.existsSync(path.join(catalogs, 'pokemon/cards.json')) || !fs.existsSync(path.join(datasets, 'real_card_photos'))) {
  console.log('recognition bench: ../shared/catalogs/pokemon and ../shared/datasets/real_card_photos are needed; skipped.');
  process.exit(0);
}

interface Identity {
  file: string;
  split: 'train' | 'val' | null;
  width: number;
  set?: string;
  in_catalog: boolean;
  catalog_id: string | null;
}
const identities = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Identity[] }).photos.filter((p) => p.set !== 'slab' && p.split);

const server = await startServer('sqlite', { LOUPE_FILE_ROOT: datasets });
try {
  const t0 = performance.now();
  await loupeCli({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '' }, 'catalog', 'import', '--kind', 'pokemon', '--cards', path.join(catalogs, 'pokemon/cards.json'), '--sets', path.join(catalogs, 'pokemon/sets.json'));
  const importS = (performance.now() - t0) / 1000;

  type Best = { id: string } | null;
  const call = async (file: string) => {
    const t = performance.now();
    const res = await fetch(`${server.url}/collectibles/v2/tcg_id`, { method: 'POST', headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ _file: file }] }) });
    const body = (await res.json()) as { records?: { _status: { code: number }; _objects?: { _identification: { best_match: Best; alternatives: { id: string }[] } }[] }[] };
    return { ms: performance.now() - t, record: body.records?.[0] };
  };

  const rows: string[] = [];
  let first: number | undefined;
  for (const split of ['val', 'train'] as const) {
    const tally = { photos: 0, inCatalog: 0, right: 0, wrong: 0, none: 0, listed: 0, notIn: 0, notInMatched: 0, noCard: 0 };
    const bySize = { large: { n: 0, right: 0 }, small: { n: 0, right: 0 } };
    const ms: number[] = [];
    for (const p of identities.filter((x) => x.split === split)) {
      const { ms: took, record } = await call(p.file);
      if (first === undefined) first = took;
      else ms.push(took);
      tally.photos++;
      const obj = record?._objects?.[0];
      if (!obj) tally.noCard++;
      const best = obj?._identification.best_match ?? null;
      if (!p.in_catalog) {
        tally.notIn++;
        if (best) tally.notInMatched++;
        continue;
      }
      tally.inCatalog++;
      const size = p.width >= 600 ? bySize.large : bySize.small;
      size.n++;
      if (!best) tally.none++;
      else if (best.id === p.catalog_id) {
        tally.right++;
        size.right++;
      } else tally.wrong++;
      if (best?.id === p.catalog_id || obj?._identification.alternatives.some((a) => a.id === p.catalog_id)) tally.listed++;
    }
    ms.sort((a, b) => a - b);
    const q = (f: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(ms.length * f))]!);
    const pct = (a: number, b: number) => `${a} of ${b} (${b ? Math.round((100 * a) / b) : 0} %)`;
    rows.push(
      `| ${split === 'val' ? '**validation** (never tuned on)' : 'train (rules set here)'} | ${tally.photos} | ${pct(tally.right, tally.inCatalog)} | ${tally.wrong} | ${tally.none} | ${pct(tally.listed, tally.inCatalog)} | ${pct(bySize.large.right, bySize.large.n)} / ${pct(bySize.small.right, bySize.small.n)} | ${tally.notIn - tally.notInMatched} of ${tally.notIn} | ${tally.noCard} | ${q(0.5)} / ${q(0.9)} ms |`,
    );
  }
  console.log(`# recognition bench — ${new Date().toISOString().slice(0, 10)}

/collectibles/v2/tcg_id through the server process (SQLite), full Pokémon catalog (import ${importS.toFixed(1)} s), one request at a time, real photos labelled by eye.

| split | photos | cards in catalog identified right | wrong | no match | right card among best + alternatives | right, photos >= 600 px / 310x430 px | not in catalog: no best match (target >= 90 %) | no card found | time per photo p50 / p90 (target <= 300 ms) |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

First call after start (models loading in the worker): ${Math.round(first ?? 0)} ms.
Artwork-only matching: not run; the catalog has no reference images of these cards (only SV151 and 22 MTG scans exist here).`);
} finally {
  await server.stop();
}
