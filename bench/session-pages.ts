/**
 * `npm run bench -- session-pages`: a big card session's rows pages (`GET identification/?session=…&page_size=500`),
 * page 1, a middle page, the last page and every page one after the other (the console's view and CSV export).
 *
 * One session of 20,000 rows (BENCH_BIG_ROWS) filled through the API beside 2,000 sessions of 90 rows by 4 clients, so
 * its rows lie among others' in the table as a year's do (year-of-data). With BENCH_BEFORE=<an older checkout> the
 * same data is also served by that checkout's server (a copy of the folder, or a PostgreSQL database made from the
 * filled one), and the two servers are asked in turn, round after round, so both see the same moment of a noisy
 * machine. Figures are medians of BENCH_RUNS rounds (7); `same` says both answered every page with the same bytes.
 *
 *   npm run bench -- session-pages                                  # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_BEFORE=/tmp/old-checkout BENCH_BACKENDS=postgres npm run bench -- session-pages
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sessionRow } from './lib-synthetic.ts';
import { randomPort, scratchPgDatabase } from '../test/helpers/processes.ts';
import { median } from './lib-server.ts';

const BIG_ROWS = Number(process.env.BENCH_BIG_ROWS ?? 20_000);
const SMALL_SESSIONS = Number(process.env.BENCH_SMALL_SESSIONS ?? 2000);
const runs = Number(process.env.BENCH_RUNS ?? 7);
const backends = (process.env.BENCH_BACKENDS ?? (process.env.DATABASE_URL ? 'sqlite,postgres' : 'sqlite')).split(',') as ('sqlite' | 'postgres')[];
const here = path.resolve(import.meta.dirname, '..');
const before = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
const PAGE = 500;

const cardRow = (i: number, prefix: string) => ({
  ...sessionRow(i, prefix),
  // a tenth of a second apart per 10 rows: rows that share a `seen` (ties), as a fast scanner's do
  seen: new Date(1_790_000_000_000 + Math.floor(i / 10) * 100).toISOString(),
  links: { tcgplayer: `https://www.tcgplayer.com/product/${i}` },
  alternatives: [{ name: `Card ${i + 1}`, set_code: 'MEW', distance: 0.3 }],
  price: 1 + (i % 50) / 4,
});

interface Server {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

async function startFrom(root: string, env: NodeJS.ProcessEnv): Promise<Server> {
  const port = randomPort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/server.ts')], { cwd: root, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'inherit', 'inherit'] });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const url = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + 180_000; Date.now() < until; ) {
    if (code !== undefined) throw new Error(`server (${root}) exited ${code}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return { url, child, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server (${root}) did not start`);
}

async function stopServer(s: Server): Promise<void> {
  s.child.kill('SIGTERM');
  await s.exited;
}

/** `loupe account create` of the checkout at `root` (this checkout's CLI would migrate the database past the older one). */
async function createAccount(root: string, env: NodeJS.ProcessEnv): Promise<{ token: string }> {
  const cli = spawn(process.execPath, [path.join(root, 'bin/loupe.js'), 'account', 'create', '--name', 'pages', '--credits', '100000000'], { cwd: root, env });
  let out = '';
  cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
  cli.stderr.pipe(process.stderr);
  const code = await new Promise((resolve) => cli.on('exit', resolve));
  if (code !== 0) throw new Error(`loupe account create exited ${code}`);
  return JSON.parse(out) as { token: string };
}

async function pgAdmin(url: string, statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));

for (const backend of backends) {
  const dirs = [fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pages-'))];
  const dbs: { url: string; drop(): Promise<void> }[] = [];
  if (backend === 'postgres') dbs.push(await scratchPgDatabase('loupe_pages'));
  const envOf = (i: number): NodeJS.ProcessEnv => ({ ...process.env, LOUPE_DATA_DIR: dirs[i], DATABASE_URL: dbs[i]?.url ?? '', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', LOUPE_VISION_WARM: 'none', LOUPE_VISION_THREADS: '1' });
  const servers: { name: string; server: Server }[] = [];
  try {
    // filled by the older release when there is one, so that the newer one upgrades it as a real folder would be
    const fillRoot = before ?? here;
    const account = await createAccount(fillRoot, envOf(0));
    const headers = { authorization: `Token ${account.token}`, 'content-type': 'application/json' };
    const api = async (url: string, method: string, p: string, body?: unknown): Promise<string> => {
      const res = await fetch(`${url}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
      return text;
    };
    const filler = await startFrom(fillRoot, envOf(0));
    let t = performance.now();
    let bigId = '';
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next <= SMALL_SESSIONS) {
          const i = next++;
          const big = i === 0;
          const s = JSON.parse(await api(filler.url, 'POST', '/cardstream/v2/session/', { name: big ? 'Big Sunday break' : `stream ${i}`, description: '', game: 'Pokémon', platform: 'whatnot' })) as { id: string };
          if (big) bigId = s.id;
          const rows = Array.from({ length: big ? BIG_ROWS : 90 }, (_, k) => cardRow(k, `s${i}`));
          for (let b = 0; b < rows.length; b += 500) await api(filler.url, 'POST', `/cardstream/v2/session/${s.id}/identifications/`, { identifications: rows.slice(b, b + 500) });
        }
      }),
    );
    console.log(`\n## ${backend}: fill ${BIG_ROWS.toLocaleString('en')} + ${SMALL_SESSIONS} × 90 rows through the API: ${((performance.now() - t) / 1000).toFixed(0)} s`);
    await stopServer(filler);
    // a year-old table has been vacuumed and analysed by autovacuum; one just filled may not be yet (its index-only
    // scans then visit the table for every row)
    if (backend === 'postgres') await pgAdmin(dbs[0]!.url, 'VACUUM ANALYZE card_identifications');
    if (before) {
      if (backend === 'sqlite') {
        dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-pages-')));
        fs.cpSync(dirs[0]!, dirs[1]!, { recursive: true });
      } else {
        const copy = await scratchPgDatabase('loupe_pages', `TEMPLATE ${new URL(dbs[0]!.url).pathname.slice(1)}`);
        dbs.push(copy);
      }
      servers.push({ name: 'before', server: await startFrom(before, envOf(1)) });
    }
    servers.push({ name: 'after', server: await startFrom(here, envOf(0)) });

    const pages = Math.ceil(BIG_ROWS / PAGE);
    const page = (url: string, p: number) => api(url, 'GET', `/cardstream/v2/identification/?session=${bigId}&page_size=${PAGE}&page=${p}`);
    // `next` and the signed links name the server's own address and sign with its own secret: compare the rest
    const comparable = (body: string, url: string) => body.replaceAll(url, 'BASE').replace(/"(image|thumbnail)":"[^"]*"/g, '"$1":"…"');
    const actions: [string, (url: string) => Promise<string>][] = [
      [`page 1 (${PAGE})`, (url) => page(url, 1)],
      [`middle page (${Math.ceil(pages / 2)})`, (url) => page(url, Math.ceil(pages / 2))],
      [`last page (${pages})`, (url) => page(url, pages)],
      [`every page (${pages})`, async (url) => {
        const all: string[] = [];
        for (let p = 1; p <= pages; p++) all.push(await page(url, p));
        return all.join('\n');
      }],
      ['summary', (url) => api(url, 'GET', `/cardstream/v2/session/${bigId}/summary/`)],
    ];
    const times = new Map<string, number[]>();
    const same = new Map<string, boolean>();
    for (let round = 0; round <= runs; round++) {
      for (const [label, fn] of actions) {
        const answers: string[] = [];
        // the order of the two alternates, so neither always goes first after the other warmed the disk cache
        const order = round % 2 ? [...servers].reverse() : servers;
        for (const { name, server } of order) {
          t = performance.now();
          const body = await fn(server.url);
          const ms = performance.now() - t;
          answers.push(comparable(body, server.url));
          // round 0 warms up
          if (round > 0) times.set(`${label}|${name}`, [...(times.get(`${label}|${name}`) ?? []), ms]);
        }
        if (answers.length > 1) same.set(label, (same.get(label) ?? true) && answers.every((a) => a === answers[0]));
      }
    }
    console.log(`\n| ${backend} (median of ${runs} ms) | ${servers.map((s) => s.name).join(' | ')} |${servers.length > 1 ? ' same bytes |' : ''}`);
    console.log(`|---|${servers.map(() => '---|').join('')}${servers.length > 1 ? '---|' : ''}`);
    for (const [label] of actions) console.log(`| ${label} | ${servers.map((s) => fmt(median(times.get(`${label}|${s.name}`)!))).join(' | ')} |${servers.length > 1 ? ` ${same.get(label)} |` : ''}`);
  } finally {
    for (const { server } of servers) await stopServer(server);
    if (process.env.BENCH_KEEP) console.log(`kept: ${dirs.join(' ')} ${dbs.map((d) => d.url).join(' ')}`);
    else {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      for (const d of dbs) await d.drop();
    }
  }
}
