/**
 * `npm run bench -- slabs`: `/collectibles/v2/slab_id` through the real server process (SQLite),
 * with the full Pokémon catalog of ../shared/catalogs imported (for the card a label names).
 *
 * Two sets of slabs:
 * - real: the 21 photos of ../shared/datasets/graded_slabs (20 PSA, 1 Beckett), their labels as
 *   transcribed in its manifest (grader, grade, certificate, label lines, card number); which of
 *   their cards the catalog holds, from test/fixtures/recognition/real-identities.json;
 * - drawn: slabs of the seven companies and of other graders (test/helpers/slab-labels.ts), with a
 *   seed the parser was never looked at with (the unit tests and the development runs used 19),
 *   turned a few degrees (one in ten upside down), blurred, compressed and sized at random.
 *
 * Per slab: the label found; company (OTHER for the other graders); the numeric grade (null for an
 * authentic-only label); the certificate exactly; the name line and the card number as printed
 * (compared in letters and digits only: OCR drops spaces). BENCH_SLABS_PER_COMPANY (12) and
 * BENCH_SLABS_SEED (2026) change the drawn set.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loupeCli } from '../test/helpers/processes.ts';
import { renderSlab, slabTruths } from '../test/helpers/slab-labels.ts';
import { seededRandom } from '../src/util/seeded-random.ts';
import { startServer } from './lib-server.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
const slabsDir = path.join(datasets, 'graded_slabs');
if (!fs.existsSync(path.join(slabsDir, 'manifest.json'))) {
  console.log('slabs bench: ../shared/datasets/graded_slabs is needed; skipped.');
  process.exit(0);
}

interface Truth {
  source: 'real' | 'drawn';
  company: string;
  grade: number | null;
  cert: string;
  name: string | null;
  number: string | null;
  /** Real slabs: the catalog card (`undefined` when the identities file does not say). */
  catalogId?: string | null;
}
interface Manifest {
  files: { file: string; labels: { grader: string; grade: string; cert_number: string; label_lines: string[]; label_card_number: string | null } }[];
}
const manifest = JSON.parse(fs.readFileSync(path.join(slabsDir, 'manifest.json'), 'utf8')) as Manifest;
const identities = new Map(
  (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: { file: string; catalog_id: string | null }[] }).photos.map((p) => [p.file, p.catalog_id]),
);

type Best = { company: string; grade: number | null; certificate_number: string | null; name: string | null; card_no: string | null; card: { id: string } | null };
type Rec = { _status: { code: number }; _objects?: { _identification: { best_match: Best } }[] };

const server = await startServer('sqlite', { LOUPE_FILE_ROOT: datasets });
try {
  const cards = path.join(shared, 'catalogs/pokemon/cards.json');
  if (fs.existsSync(cards)) await loupeCli({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '' }, 'catalog', 'import', '--kind', 'pokemon', '--cards', cards, '--sets', path.join(shared, 'catalogs/pokemon/sets.json'));
  const call = async (record: Record<string, string>) => {
    const t = performance.now();
    const res = await fetch(`${server.url}/collectibles/v2/slab_id`, { method: 'POST', headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [record] }) });
    const body = (await res.json()) as { records?: Rec[] };
    return { ms: performance.now() - t, best: body.records?.[0]?._objects?.[0]?._identification.best_match ?? null };
  };

  const results: { truth: Truth; best: Best | null; ms: number; group: string }[] = [];
  let first: number | undefined;
  for (const f of manifest.files) {
    const l = f.labels;
    const truth: Truth = { source: 'real', company: l.grader, grade: Number(l.grade), cert: l.cert_number, name: l.label_lines[1] ?? null, number: l.label_card_number?.replace(/^#/, '') ?? null, catalogId: identities.get(`graded_slabs/${f.file}`) };
    const r = await call({ _file: `graded_slabs/${f.file}` });
    if (first === undefined) first = r.ms;
    results.push({ truth, ...r, group: `real ${l.grader}` });
  }
  const perCompany = Number(process.env.BENCH_SLABS_PER_COMPANY ?? 12);
  const seed = Number(process.env.BENCH_SLABS_SEED ?? 2026);
  const rand = seededRandom(seed + 1);
  for (const t of slabTruths(perCompany, seed)) {
    const photo = await renderSlab(t, { rotation: (rand() - 0.5) * 8 + (rand() < 0.1 ? 180 : 0), blur: rand() < 0.5 ? 0.3 + rand() * 0.6 : 0, quality: 70 + Math.round(rand() * 22), size: 700 + Math.round(rand() * 600) });
    const r = await call({ _base64: photo.toString('base64') });
    results.push({ truth: { source: 'drawn', company: t.company, grade: t.grade, cert: t.cert, name: t.name, number: t.number }, ...r, group: `drawn ${t.company}` });
  }

  const norm = (s: string | null | undefined) => (s ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '');
  const score = (rows: typeof results) => {
    const n = rows.length;
    const c = (f: (r: (typeof results)[number]) => boolean) => rows.filter(f).length;
    const named = rows.filter((r) => r.truth.name);
    const numbered = rows.filter((r) => r.truth.number);
    return {
      n,
      found: c((r) => r.best !== null),
      company: c((r) => r.best?.company === r.truth.company),
      grade: c((r) => r.best !== null && r.best.grade === r.truth.grade),
      cert: c((r) => r.best?.certificate_number === r.truth.cert),
      name: [named.filter((r) => norm(r.best?.name) === norm(r.truth.name)).length, named.length] as const,
      number: [numbered.filter((r) => norm(r.best?.card_no) === norm(r.truth.number)).length, numbered.length] as const,
      // a wrong certificate is worse than none: count them apart
      certWrong: c((r) => r.best?.certificate_number != null && r.best.certificate_number !== r.truth.cert),
    };
  };
  const pct = (a: number, b: number) => `${a}/${b} (${b ? ((100 * a) / b).toFixed(0) : '–'} %)`;
  const row = (label: string, rows: typeof results) => {
    const s = score(rows);
    return `| ${label} | ${s.n} | ${pct(s.found, s.n)} | ${pct(s.company, s.n)} | ${pct(s.grade, s.n)} | ${pct(s.cert, s.n)} (${s.certWrong} wrong) | ${pct(s.name[0], s.name[1])} | ${pct(s.number[0], s.number[1])} |`;
  };
  const groups = [...new Set(results.map((r) => r.group))];
  const real = results.filter((r) => r.truth.source === 'real');
  const drawn = results.filter((r) => r.truth.source === 'drawn');
  const inCatalog = real.filter((r) => r.truth.catalogId);
  const notInCatalog = real.filter((r) => r.truth.catalogId === null);
  const ms = results.slice(1).map((r) => r.ms).sort((a, b) => a - b);
  const q = (f: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(ms.length * f))]!);
  const misses = results.filter((r) => {
    const s = score([r]);
    return s.company + s.grade + s.cert < 3 || s.name[0] < s.name[1] || s.number[0] < s.number[1];
  });
  console.log(`# slabs bench — ${new Date().toISOString().slice(0, 10)}

/collectibles/v2/slab_id through the server process (SQLite), one request at a time; drawn slabs: ${perCompany} per company, seed ${seed}.

| slabs | n | label found | company | grade (number) | certificate exact | name line | card number |
|---|---|---|---|---|---|---|---|
${groups.map((g) => row(g, results.filter((r) => r.group === g))).join('\n')}
| **real, all** | ${row('', real).split('|').slice(2).join('|')}
| **drawn, all** | ${row('', drawn).split('|').slice(2).join('|')}
| **all** | ${row('', results).split('|').slice(2).join('|')}

Card the label names (real slabs, full Pokémon catalog): ${inCatalog.filter((r) => r.best?.card?.id === r.truth.catalogId).length} of ${inCatalog.length} in the catalog matched right; ${notInCatalog.filter((r) => !r.best?.card).length} of ${notInCatalog.length} not in it left unmatched.
Time per slab p50 / p90: ${q(0.5)} / ${q(0.9)} ms (first call, models loading: ${Math.round(first ?? 0)} ms).
${misses.length ? `\nMisses:\n${misses.map((r) => `- ${r.group}: expected ${r.truth.company} ${r.truth.grade} ${r.truth.cert} "${r.truth.name}" #${r.truth.number}; read ${r.best ? `${r.best.company} ${r.best.grade} ${r.best.certificate_number} "${r.best.name}" #${r.best.card_no}` : 'no label'}`).join('\n')}` : ''}`);
} finally {
  await server.stop();
}
