/**
 * Differential test of the two backends: starts one server on the embedded default (SQLite + media folder) and one on
 * PostgreSQL, drives both with the same client calls, and diffs the two transcripts (ids, times, links and timings
 * made alike first). Every difference is a defect on one side, or one docs/ records (text search's stemmers, docs/text-search.md).
 *
 *   DIFF_PG_URL=postgres://user@host/<empty database> npx tsx scripts/backend-diff.ts [--out DIR] [--only sessions,collections,text,matching,requests,extra,textlang]
 *
 * The PostgreSQL database must exist and be empty (it is migrated by the server). Transcripts are written to DIR
 * (default a temporary folder) as sqlite.jsonl and postgres.jsonl; the differences are printed, exit 1 when any.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const argOf = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const outDir = argOf('--out') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'backend-diff-'));
const only = argOf('--only')?.split(',');
const pgUrl = process.env.DIFF_PG_URL;
if (!pgUrl) throw new Error('DIFF_PG_URL: an empty PostgreSQL database for the second server');
const photos = process.env.DIFF_PHOTOS ?? path.join(root, '../shared/datasets/caltech101_subset');

interface Server {
  name: 'sqlite' | 'postgres';
  base: string;
  env: Record<string, string>;
  proc?: ChildProcess;
  token: string;
  photo: string;
  custom: string;
}

function cli(env: Record<string, string>, ...argv: string[]): Record<string, unknown> {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/loupe.js'), ...argv], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`loupe ${argv.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

async function startServer(name: Server['name'], port: number): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `backend-diff-${name}-`));
  const env: Record<string, string> = {
    LOUPE_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOUPE_RATE_LIMIT: '0',
    LOUPE_VISION_THREADS: '1',
    LOUPE_VISION_WARM: 'none',
    LOUPE_SEEN: 'colors',
    // requests stay CREATED: their listing is then the same whatever the timing
    LOUPE_QUEUE_WORKERS: '0',
    LOG_LEVEL: 'warn',
    ...(name === 'postgres' ? { DATABASE_URL: pgUrl! } : { DATABASE_URL: '' }),
  };
  const account = cli(env, 'account', 'create', '--name', 'diff', '--credits', '100000');
  const photo = cli(env, 'collection', 'create', '--account', String(account.account), '--type', 'photo', '--name', 'photos');
  const custom = cli(env, 'collection', 'create', '--account', String(account.account), '--type', 'custom', '--name', 'custom');
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (i > 600) throw new Error(`${name} server did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { name, base, env, proc, token: String(account.token), photo: String(photo.collection_id), custom: String(custom.collection_id) };
}

/** A body sent as written: numbers in forms JSON.stringify never makes (`-0`, `1.0`, `1E2`). */
class Raw {
  constructor(readonly text: string) {}
}

/** The few fields the script reads back from answers to go on (ids, pages). */
interface Answer {
  id?: string;
  results?: { id: string; event_id: string }[];
  next?: string | null;
  [key: string]: unknown;
}

type Entry = { step: string; method: string; url: string; body?: unknown; status: number; answer: unknown };

/** One client, one server: every call appended to the transcript. */
class Client {
  readonly log: Entry[] = [];
  constructor(readonly s: Server) {}
  async call(step: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Answer }> {
    const res = await fetch(this.s.base + url, {
      method,
      headers: { authorization: `Token ${this.s.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: body instanceof Raw ? body.text : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      /* kept as text */
    }
    if (body instanceof Raw) body = { raw: body.text.length > 2000 ? `<${body.text.length} chars>` : body.text };
    const shown = body && typeof body === 'object' ? JSON.parse(JSON.stringify(body, (k, v) => (k === '_base64' || k === 'image' ? `<${String(v).length} chars>` : v))) : body;
    this.log.push({ step, method, url, body: shown, status: res.status, answer: json });
    return { status: res.status, json: (json && typeof json === 'object' ? json : {}) as Answer };
  }
  coll(step: string, which: 'photo' | 'custom', method: string, body: unknown) {
    const basePath = which === 'photo' ? '/similarity/photos/v2/' : '/similarity/custom/v2/';
    return this.call(step, 'POST', basePath + method, body, { 'collection-id': which === 'photo' ? this.s.photo : this.s.custom });
  }
}

// ---------------------------------------------------------------- the script, identical for both servers

const long = (n: number, unit = 'ab') => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

async function sessions(c: Client) {
  await c.call('ping', 'GET', '/cardstream/v2/ping/');
  const bodies: Record<string, unknown>[] = [
    { name: 'Pokémon night — ポケモン 🎴', game: 'pokémon', platform: 'twitch', description: 'naïve café', client: { name: 'app', version: 2.1, os: { name: 'iOS', version: '17.1' } }, meta_data: { n: 9007199254740991, f: 0.1, nested: { a: [1, 'x', null, true, { b: {} }] }, ü: 'ß' } },
    { name: long(255, 'é'), game: 'TCG', platform: 'other', description: long(10_000, 'xy'), meta_data: {} },
    { name: 'ecole', game: ' tcg ', platform: '', description: null, client: null, meta_data: null },
    { name: 'École', game: 'Sports' },
    { name: 'ÉCOLE ISTANBUL', game: 'sport', description: 'İstanbul ΟΔΟΣ' },
    { name: 'zeta', game: 'Comics', platform: 'ＰＳＡ１０ ﾎﾟｹﾓﾝ' },
    { name: 'Zeta', game: '' },
    {},
    { name: '   ', game: 'Slabs' },
    { name: 'mrs. jones collection', game: 'Magic The Gathering', description: 'שָׁלוֹם Glu\u00adrak' },
  ];
  const ids: string[] = [];
  for (const [i, body] of bodies.entries()) {
    const r = await c.call(`session.create.${i}`, 'POST', '/cardstream/v2/session/', body);
    ids.push(r.json.id!);
  }
  const [s0, s1] = ids as [string, string];
  // rows with odd values
  const rows: Record<string, unknown>[] = [
    { event_id: 'e-ü-1', name: 'Pikachu ✨', full_name: long(500, 'ñ'), set_name: long(255), set_code: long(50), card_number: '25/102', series: 'Base', year: '1999', subcategory: long(100), price: 0.123456789012345, seen: '2026-11-24T01:53:00.5+02:00', calls: 3, duration: 1.25, id_type: 'TCG', confidence: 'High', distance: -0.5, links: { tcgplayer: 'https://example.com/a?b=c&d=é' }, alternatives: [{ name: 'Raichu', price: 1e21 }], grading: { endpoint: 'x', grades: { final: '9.5', corners: 9 } }, sold: false, note: '' },
    { event_id: 'e-2', name: null, full_name: null, price: 0, seen: '2026-11-20', sold: null, note: null, grading: null, links: null },
    { event_id: 'e-3', name: '日本語カード', price: Number('123456789.987654321'), calls: 0, grading: { grades: { final: 10 } } },
    { event_id: 'e-4', name: 'Mew', price_stats: [{ stats_type: 'ungraded', interval: '30 days', value: { median: 12.345, mean: 10 } }, { stats_type: 'overall', interval: '7d', value: { median: 99 } }] },
    { event_id: 'e-5', name: 'Ω', price: 1e9, grading: { grades: { final: 0 } } },
    { event_id: 'e-6', name: 'neg', price: -1 },
  ];
  await c.call('rows.bad-batch', 'POST', `/cardstream/v2/session/${s0}/identifications/`, { identifications: rows });
  await c.call('rows.upload', 'POST', `/cardstream/v2/session/${s0}/identifications/`, { identifications: rows.slice(0, 5) });
  await c.call('rows.resend', 'POST', `/cardstream/v2/session/${s0}/identifications/`, { identifications: [{ ...rows[0], calls: 1, note: 'later', grading: { grades: { final: 8 } } }, rows[1], { event_id: 'e-new', price: 0.005 }, { event_id: 'e-new', price: 0.015, calls: 2 }] });
  await c.call('rows.too-long', 'POST', `/cardstream/v2/session/${s0}/identifications/`, { identifications: [{ event_id: 'x', name: long(256) }, { event_id: 'y', year: long(21) }] });
  await c.call('rows.numbers', 'POST', `/cardstream/v2/session/${s0}/identifications/`, { identifications: [{ event_id: 'big', price: 0.1 + 0.2, distance: 1e-7, calls: 1_000_000_000, duration: 1e9 }] });
  for (let i = 0; i < 7; i++) await c.call(`rows.more.${i}`, 'POST', `/cardstream/v2/session/${s1}/identifications/`, { identifications: Array.from({ length: 30 }, (_, j) => ({ event_id: `b${i}-${j}`, name: j % 3 === 0 ? 'Same' : `c${(i * 30 + j) % 17}`, price: (j % 5) * 0.333, calls: j })) });
  // listing
  const list = async (step: string, q: string) => c.call(step, 'GET', `/cardstream/v2/identification/?${q}`);
  const page1 = await list('ids.list', `session=${s0}`);
  for (const q of ['page_size=2', 'page_size=2&page=2', 'page_size=2&page=4', 'page=0', 'page_size=501', 'page_size=', 'event_id=e-%C3%BC-1', 'event_id=', 'event_id=nope', 'page=abc']) await list(`ids.list.${q}`, `session=${s0}&${q}`);
  await list('ids.list.s1.p3', `session=${s1}&page_size=50&page=3`);
  await list('ids.list.s1.p5', `session=${s1}&page_size=50&page=5`);
  await list('ids.list.nosession', 'page=1');
  await list('ids.list.badsession', 'session=00000000-0000-0000-0000-000000000000');
  // corrections
  const rowId = page1.json.results!.find((r) => r.event_id === 'e-ü-1')!.id;
  const row3 = page1.json.results!.find((r) => r.event_id === 'e-4')!.id;
  await c.call('ids.patch', 'PATCH', `/cardstream/v2/identification/${rowId}/`, { name: 'Raichu ⚡', price: 0.000001, set: null, year: '2000', note: 'ñ'.repeat(10_000) });
  await c.call('ids.patch2', 'PATCH', `/cardstream/v2/identification/${rowId}/`, { price: null, seen: '2026-01-01T00:00:00.1234567Z' });
  await c.call('ids.patch.stats', 'PATCH', `/cardstream/v2/identification/${row3}/`, { name: 'Mewtwo', price_stats: [{ stats_type: 'graded', interval: 'P1Y2M', value: { latest: '7.777' } }] });
  await c.call('ids.patch.neg', 'PATCH', `/cardstream/v2/identification/${row3}/`, { price: -0.01 });
  await c.call('ids.patch.long', 'PATCH', `/cardstream/v2/identification/${row3}/`, { card_number: long(51) });
  await list('ids.list.after', `session=${s0}`);
  for (const id of [s0, s1]) await c.call('summary', 'GET', `/cardstream/v2/session/${id}/summary/`);
  await c.call('calls', 'POST', `/cardstream/v2/session/${s0}/calls/`, { run: 'r1', calls: 5 });
  await c.call('calls', 'POST', `/cardstream/v2/session/${s0}/calls/`, { run: 'r1', calls: 3 });
  await c.call('calls', 'POST', `/cardstream/v2/session/${s0}/calls/`, { run: 7, calls: 2 });
  await c.call('summary.calls', 'GET', `/cardstream/v2/session/${s0}/summary/`);
  // session list: every option
  for (const q of ['', 'page_size=3', 'page_size=3&page=2', 'page_size=3&page=4', 'page_size=3&page=5', 'search=ecole', 'search=ECOLE', 'search=istanbul', 'search=%CE%BF%CE%B4%CE%BF%CF%82', 'search=pokemon', 'search=psa', 'search=%E3%83%9D%E3%82%B1%E3%83%A2%E3%83%B3', 'search=jones%20mrs', 'search=glurak', 'search=%D7%A9%D7%9C%D7%95%D7%9D', 'search=', 'search=zzzz', 'game=tcg', 'game=TCG', 'game=sports', 'game=pok%C3%A9mon', 'game=POKEMON', 'game=', 'game=comic', 'game=slab', 'search=e&game=tcg', 'page=1000000', 'page_size=0']) {
    await c.call(`sessions.list.${q}`, 'GET', `/cardstream/v2/session/?${q}`);
  }
  // close/reopen/patch/delete
  await c.call('close', 'POST', `/cardstream/v2/session/${s1}/close/`);
  await c.call('close.again', 'POST', `/cardstream/v2/session/${s1}/close/`);
  await c.call('upload.closed', 'POST', `/cardstream/v2/session/${s1}/identifications/`, { identifications: [{ event_id: 'late' }] });
  await c.call('reopen', 'POST', `/cardstream/v2/session/${s1}/reopen/`);
  await c.call('patch', 'PATCH', `/cardstream/v2/session/${s1}/`, { name: 'renamed ✓', meta_data: { deep: { deeper: [1.5, -0, 1e-300] } }, description: null });
  await c.call('patch.blank', 'PATCH', `/cardstream/v2/session/${s1}/`, { name: '' });
  await c.call('patch.nothing', 'PATCH', `/cardstream/v2/session/${s1}/`, {});
  await c.call('get', 'GET', `/cardstream/v2/session/${s1}/`);
  await c.call('delete.row', 'DELETE', `/cardstream/v2/identification/${row3}/`);
  await c.call('delete', 'DELETE', `/cardstream/v2/session/${ids[3]}/`);
  await c.call('get.deleted', 'GET', `/cardstream/v2/session/${ids[3]}/`);
  await c.call('delete.again', 'DELETE', `/cardstream/v2/session/${ids[3]}/`);
  await c.call('sessions.list.end', 'GET', '/cardstream/v2/session/?page_size=100');
  await list('ids.list.end', `session=${s0}`);
  await c.call('summary.end', 'GET', `/cardstream/v2/session/${s0}/summary/`);
}

// ------------------------------------------------------------------------- collections

function photoFiles(n: number): { file: string; cls: string }[] {
  const classes = fs.readdirSync(photos).filter((d) => fs.statSync(path.join(photos, d)).isDirectory()).sort();
  const out: { file: string; cls: string }[] = [];
  for (let i = 0; out.length < n; i++) {
    const cls = classes[i % classes.length]!;
    const files = fs.readdirSync(path.join(photos, cls)).filter((f) => f.endsWith('.jpg')).sort();
    const file = files[Math.floor(i / classes.length)];
    if (file) out.push({ file: path.join(photos, cls, file), cls });
  }
  return out;
}

const strings = ['école', 'Ecole', 'ecole', 'École', 'zebra', 'Zebra', 'Äpfel', 'apple', 'ñandu', 'Ñandu', '日本', '', ' spaced', 'ß', 'SS', 'ǅ', 'e\u0301cole', 'Ω', 'ω', '10', '9', '2024-01-15', '2024-01-15T10:00:00Z', 'null'];
const vs: unknown[] = [5, '5', true, false, null, { a: 1 }, [5, '5'], [], 0, -0.5, 9007199254740991, -9007199254740991, 1e21, 1.5e-10, 'abc', ['x', null], [{ k: 1 }, { k: 'a' }], { a: { b: null } }, 2.5, 'ABC', 'äbc', 7, -7, 1e300];

function metadata(i: number, cls: string): Record<string, unknown> {
  const m: Record<string, unknown> = {
    _id: i % 7 === 6 ? i : `r${i}-${cls}`,
    cls,
    i,
    s: strings[i % strings.length],
    v: vs[i % vs.length],
    tags: i % 4 === 0 ? [] : [cls, i % 2 ? 'odd' : 'even', ...(i % 3 === 0 ? ['Straße'] : [])],
    nested: { a: { b: { c: i % 5 } }, color: ['red', 'Red', 'rouge', 'blue'][i % 4], list: [{ q: i % 3 }, { q: (i + 1) % 3 }] },
    date: `2024-0${(i % 9) + 1}-1${i % 10}`,
    flag: i % 3 === 0 ? true : i % 3 === 1 ? false : null,
    'clé': `valeur ${i}`,
    名前: i % 2 ? 'テスト' : 'test',
    big: i % 2 ? 9007199254740991 : -9007199254740990,
    price: [0, -1.25, 3.333333333333333, 1e-9, 100][i % 5],
  };
  if (i % 5 === 0) delete m.flag;
  if (i % 6 === 0) m.opt = null;
  return m;
}

const filters: unknown[] = [
  {},
  { cls: 'Leopards' },
  { s: 'école' },
  { s: 'Ecole' },
  { s: { $gt: 'e' } },
  { s: { $gte: 'École' } },
  { s: { $lt: 'Z' } },
  { s: { $lte: '' } },
  { s: { $gt: 'ecole', $lt: 'zebra' } },
  { s: { $in: [] } },
  { s: { $nin: [] } },
  { s: { $in: ['école', 'ECOLE', 'ß'] } },
  { s: { $ne: null } },
  { opt: { $ne: null } },
  { opt: null },
  { opt: { $exists: true } },
  { opt: { $exists: false } },
  { flag: { $exists: false } },
  { flag: null },
  { flag: { $ne: true } },
  { flag: { $in: [null, false] } },
  { flag: { $nin: [null] } },
  { v: 5 },
  { v: '5' },
  { v: { $gt: 4 } },
  { v: { $gt: '4' } },
  { v: { $lt: true } },
  { v: { $gte: false } },
  { v: { $gt: 'A' } },
  { v: { $lte: 9007199254740991 } },
  { v: { $gte: 1e21 } },
  { v: { $eq: [] } },
  { v: [5, '5'] },
  { v: { a: 1 } },
  { v: { $in: [5, 'abc', null] } },
  { v: { $size: 2 } },
  { v: { $size: 0 } },
  { v: { $all: ['x'] } },
  { v: { $all: [null] } },
  { v: { $elemMatch: { k: 'a' } } },
  { v: { $elemMatch: { $gt: 4 } } },
  { 'v.a': 1 },
  { 'v.a.b': null },
  { 'v.k': { $exists: true } },
  { v: { $not: { $gt: 4 } } },
  { v: { $type: 'string' } },
  { 'nested.a.b.c': { $gte: 3 } },
  { 'nested.color': 'red' },
  { 'nested.color': { $regex: '^r' } },
  { 'nested.color': { $regex: '^R', $options: 'i' } },
  { 'nested.list.q': 2 },
  { 'nested.list': { $elemMatch: { q: { $gt: 1 } } } },
  { 'nested.list': { $size: 2 } },
  { tags: 'odd' },
  { tags: { $all: ['odd', 'Straße'] } },
  { tags: { $size: 0 } },
  { tags: { $in: ['STRASSE', 'Straße'] } },
  { tags: { $regex: 'strasse', $options: 'i' } },
  { tags: { $regex: 'straße', $options: 'i' } },
  { tags: { $nin: ['odd'] } },
  { date: { $gte: '2024-05-01', $lt: '2024-08-01' } },
  { date: { $gt: '2024-1' } },
  { 'clé': { $regex: '^valeur 1' } },
  { 名前: 'テスト' },
  { big: 9007199254740991 },
  { big: { $lt: 0 } },
  { price: { $lt: 0 } },
  { price: 0 },
  { price: -0 },
  { price: { $gt: 0, $lt: 1e-8 } },
  { price: { $in: [3.333333333333333, 100] } },
  { _id: 6 },
  { _id: '6' },
  { _id: { $in: [6, 13, 'r0-Leopards'] } },
  { _id: { $regex: '^r1' } },
  { _id: { $gt: 4 } },
  { $or: [{ flag: true }, { s: 'ß' }] },
  { $and: [{ flag: { $exists: true } }, { flag: { $ne: null } }] },
  { $nor: [{ flag: true }, { flag: false }] },
  { $or: [] },
  { s: { $regex: 'ÉCOLE', $options: 'i' } },
  { s: { $regex: '^é' } },
  { s: { $regex: 'e\u0301' } },
  { s: { $regex: '^.$' } },
  { s: { $regex: '^\\w+$' } },
  { s: { $regex: 'ω', $options: 'i' } },
  { s: { $regex: '^$' } },
  { s: { $not: { $regex: 'e' } } },
  { s: { $gt: 'ß' } },
  { s: { $lt: 'Ω', $gt: 'ǅ' } },
  { s: { $gt: '日' } },
  { s: { $gt: 9 } },
  { s: { $gt: '10' } },
  { s: { $in: ['10', 10] } },
  { nested: { a: { b: { c: 1 } } } },
  { nested: { $exists: true }, 'nested.a': { $exists: true } },
  { missing: { $exists: false } },
  { missing: null },
  { missing: { $ne: 1 } },
  { missing: { $nin: [1] } },
  { 'tags.0': 'odd' },
  { s: { $foo: 1 } },
  { $where: '1' },
  { s: { $regex: '(a+)+' } },
  { s: { $gt: null } },
];

async function collections(c: Client, n: number) {
  const files = photoFiles(n);
  await c.call('coll.ping', 'GET', '/similarity/photos/v2/ping', undefined, { 'collection-id': c.s.photo });
  for (let i = 0; i < files.length; i += 8) {
    const records = files.slice(i, i + 8).map((f, j) => ({ ...metadata(i + j, f.cls), _base64: fs.readFileSync(f.file).toString('base64') }));
    await c.coll(`coll.insert.${i}`, 'photo', 'insert', { records, fields_to_return: ['*'] });
    await c.coll(`coll.insert.custom.${i}`, 'custom', 'insert', { records: records.map(({ tags, ...r }: Record<string, unknown>) => ({ ...r, _tags: tags })), fields_to_return: ['_id', 'nested.color'] });
  }
  const img0 = fs.readFileSync(files[0]!.file).toString('base64');
  // refused and edge records
  await c.coll('coll.insert.edge', 'photo', 'insert', {
    records: [
      { _id: 'dup', _base64: img0, over: 2 ** 53 + 2 },
      { _id: 'r0-' + files[0]!.cls, _base64: img0 },
      { _id: 'dollar', _base64: img0, meta: { $x: 1 } },
      { _id: 'k-order', _base64: img0, zz: 1, a: 2, mm: { z: 1, b: [3, { y: 1, c: 2 }] }, '': 'empty key' },
      { _id: long(255), _base64: img0 },
      { _id: long(256), _base64: img0 },
      { _id: '', _base64: img0 },
      { _id: 'bad-img', _base64: 'aGVsbG8=' },
    ],
    fields_to_return: ['*'],
  });
  await c.coll('coll.get', 'photo', 'get', { records: [{ _id: 'k-order' }, { _id: 6 }, { _id: 'nope' }, { _id: 'r1-' + files[1]!.cls }] });
  await c.coll('coll.count', 'photo', 'getRecordCount', {});
  for (const [fi, filter] of filters.entries()) {
    await c.coll(`find.${fi}`, 'photo', 'find', { filter, limit: 100, fields_to_return: ['_id'] });
    await c.coll(`count.${fi}`, 'photo', 'getRecordCount', { filter });
  }
  // searches with filters: the nearest records a filter lets through
  const q = { _id: 'r0-' + files[0]!.cls };
  for (const [fi, filter] of filters.entries()) {
    await c.coll(`knn.${fi}`, 'photo', 'visualKNN', { query_record: q, k: 5, filter, fields_to_return: ['_id'] });
  }
  await c.coll('knn.page', 'photo', 'visualKNN', { query_record: q, k: 4, from: 3, fields_to_return: ['_id', 's', 'v', 'nested.color'] });
  await c.coll('knn.all', 'photo', 'visualKNN', { query_record: q, k: 1000, fields_to_return: ['*'] });
  await c.coll('knn.img', 'photo', 'visualKNN', { query_record: { _base64: fs.readFileSync(files[1]!.file).toString('base64') }, k: 10 });
  await c.coll('knn.custom', 'custom', 'visualKNN', { query_record: q, k: 10, filter: { _tags: 'odd' } });
  await c.coll('tagsknn', 'photo', 'visualTagsKNN', { query_record: { ...q, tags: ['odd', 'Straße'] }, k: 10 });
  await c.coll('tagsknn.custom', 'custom', 'visualTagsKNN', { query_record: { ...q, _tags: ['even'] }, k: 10 });
  await c.coll('multi', 'photo', 'visualKNNMulti', { query_records: [q, { _id: 6 }, { _id: 'missing' }], k: 5, filter: { flag: { $ne: true } } });
  await c.coll('tagsmulti', 'photo', 'visualTagsKNNMulti', { query_records: [{ ...q, tags: ['odd'] }, { _id: 6, tags: ['even'] }], k: 5 });
  for (const [fi, filter] of [{}, { s: { $regex: 'e', $options: 'i' } }, { flag: null }, { v: { $in: [] } }].entries()) {
    await c.coll(`range.${fi}`, 'photo', 'range', { query_record: q, radius: 40, limit: 1000, filter });
    await c.coll(`range.small.${fi}`, 'photo', 'range', { query_record: q, radius: 0.0001, filter });
    await c.coll(`neardups.${fi}`, 'photo', 'nearDuplicates', { query_record: q, filter });
    await c.coll(`neardups.r.${fi}`, 'photo', 'nearDuplicates', { query_record: q, radius: 30, k: 3, from: 1, filter });
  }
  await c.coll('neardupsinsert', 'photo', 'nearDupsInsert', { records: [{ _id: 'copy', _base64: img0, x: 1 }, { _id: 'new', _base64: fs.readFileSync(files[files.length - 1]!.file).toString('base64') }] });
  await c.coll('pairs', 'photo', 'allNearDupPairs', {});
  await c.coll('random', 'photo', 'random', { count: 1000, filter: { flag: true }, fields_to_return: ['_id'] });
  await c.coll('allrecords', 'photo', 'allRecords', { size: 7, page: 2, filter: { s: { $ne: 'ecole' } } });
  await c.coll('allrecords.ids', 'photo', 'allRecords', { only_ids: true });
  await c.coll('find.page', 'photo', 'find', { filter: { tags: { $exists: true } }, limit: 5, from: 5 });
  // updates and deletes
  await c.coll('update', 'photo', 'update', { records: [{ _id: 'k-order', a: null, 'mm.b': 'x', 'nn.p.q': [1, { r: null }], zz: 'Ω' }, { _id: 6, s: 'Émile', flag: null }, { _id: 'nope', x: 1 }, { _id: 'dup', 'mm.z': 1 }] });
  await c.coll('get.updated', 'photo', 'get', { records: [{ _id: 'k-order' }, { _id: 6 }] });
  await c.coll('find.updated', 'photo', 'find', { filter: { 'nn.p.q': { $elemMatch: { r: null } } } });
  await c.coll('delete', 'photo', 'delete', { records: [{ _id: 'k-order' }, { _id: 'nope' }, { _id: 'k-order' }] });
  await c.coll('deleteByFilter.typo', 'photo', 'deleteByFilter', { filter: { colr: null } });
  await c.coll('deleteByFilter', 'photo', 'deleteByFilter', { filter: { flag: false, price: { $lt: 0 } } });
  await c.coll('count.end', 'photo', 'getRecordCount', {});
  await c.coll('find.end', 'photo', 'find', { limit: 1000, fields_to_return: ['*'] });
  await c.coll('find.custom.end', 'custom', 'find', { limit: 1000, fields_to_return: ['*'] });
}

/** Round two: the inputs most likely to meet each engine's own text, number and key handling. */
async function extra(c: Client) {
  // card sessions: LIKE wildcards in a search, event ids that differ by case, spacing or normal form, huge totals
  const made: string[] = [];
  for (const name of ['100% mint', '100x mint', 'a_b', 'axb', 'back\\slash', 'back slash', 'ÆON', 'æon', 'ǅemal', 'ǆemal', 'Straße', 'STRASSE', 'ﬁre', 'fire', '😀 party', 'Ａｂｃ']) {
    made.push((await c.call(`x.session.${name}`, 'POST', '/cardstream/v2/session/', { name, game: name.slice(0, 3) })).json.id!);
  }
  for (const q of ['100%25', '%25', '_', 'a_b', '%5C', 'back%5C', 'æon', 'ÆON', 'ǆemal', 'ǅ', 'strasse', 'straße', 'fire', 'ﬁ', '%F0%9F%98%80', 'abc', '%20', '100%25%20mint', '*', "'", '%22']) {
    await c.call(`x.sessions.search.${q}`, 'GET', `/cardstream/v2/session/?page_size=100&search=${q}`);
  }
  for (const q of ['%C3%A6on', '%C3%86ON', 'str', 'STR', 'a_b', '100', '%F0%9F%98%80']) await c.call(`x.sessions.game.${q}`, 'GET', `/cardstream/v2/session/?page_size=100&game=${q}`);
  const s = made[0]!;
  const ev = ['ABC', 'abc', 'abc ', ' abc', 'é', 'e\u0301', 'İ', 'i̇', '😀', '%', '_', 'a%b', 'ß', 'ss', 'ǅ', 'ǆ'].map((x) => JSON.parse(`"${x}"`) as string);
  await c.call('x.rows.ev', 'POST', `/cardstream/v2/session/${s}/identifications/`, { identifications: ev.map((event_id, i) => ({ event_id, name: ['Émile', 'émile', 'EMILE', 'Emile', 'e\u0301mile', 'Straße', 'STRASSE', 'strasse'][i % 8]!.replace('\\u0301', '\u0301'), set_code: i % 2 ? 'base' : 'BASE', card_number: ['1', '01', '1/102', '001'][i % 4], price: [999999999.995, 0.005, 2.675, 1.005, 0.015, 1e-7, 123.4549999][i % 7] })) });
  await c.call('x.rows.ev.again', 'POST', `/cardstream/v2/session/${s}/identifications/`, { identifications: ev.map((event_id) => ({ event_id, calls: 1 })) });
  for (const e of ev) await c.call(`x.ids.ev.${e}`, 'GET', `/cardstream/v2/identification/?session=${s}&event_id=${encodeURIComponent(e)}`);
  await c.call('x.ids.all', 'GET', `/cardstream/v2/identification/?session=${s}&page_size=500`);
  await c.call('x.summary', 'GET', `/cardstream/v2/session/${s}/summary/`);
  await c.call('x.session', 'GET', `/cardstream/v2/session/${s}/`);
  // huge totals: a thousand rows near the price limit
  const big = made[1]!;
  await c.call('x.rows.big', 'POST', `/cardstream/v2/session/${big}/identifications/`, { identifications: Array.from({ length: 1000 }, (_, i) => ({ event_id: `p${i}`, name: `n${i % 50}`, price: 1e9 - (i % 7) * 0.001 - 0.0049 })) });
  await c.call('x.summary.big', 'GET', `/cardstream/v2/session/${big}/summary/`);
  await c.call('x.session.big', 'GET', `/cardstream/v2/session/${big}/`);
  const list = await c.call('x.ids.big', 'GET', `/cardstream/v2/identification/?session=${big}&page_size=3&page=77`);
  const firstId = list.json.results?.[0]?.id;
  if (firstId) await c.call('x.patch.big', 'PATCH', `/cardstream/v2/identification/${firstId}/`, { price: 0.0049 });
  await c.call('x.summary.big2', 'GET', `/cardstream/v2/session/${big}/summary/`);
  await c.call('x.session.big2', 'GET', `/cardstream/v2/session/${big}/`);
  // raw numbers in a session's meta_data and a row's grading
  await c.call('x.raw.session', 'POST', '/cardstream/v2/session/', new Raw('{"name":"raw","meta_data":{"a":-0,"b":1.0,"c":1E2,"d":1e-7,"e":0.30000000000000004,"f":123456789012345678,"g":1e300,"h":-1.5e-300,"i":100000000000000000000,"j":[0.0,-0.0]}}'));
  // collections: keys and values the two engines write out their own ways
  const img = fs.readFileSync(photoFiles(1)[0]!.file).toString('base64');
  const oddKeys = new Raw(String.raw`{"records":[
    {"_id":"k1","_base64":"${img}","a.b":1,"a":{"b":2},"quo\"te":"q","back\\slash":"b","new\nline":"n","sp ace":"s","ünï":"u","emoji😀":"e","v":-0,"w":1.0,"x":1E2,"y":1e-7,"z":"😀","t":"\uff71","l":"a\u2028b","r":"line1\r\nline2","n":1e300},
    {"_id":"K1","_base64":"${img}","a":{"b":1},"v":0,"z":"\uff61","t":"😃","l":"a\nb","r":"line1\nline2","n":-1e300},
    {"_id":"k1 ","_base64":"${img}","z":"ｱ","t":"\ud83d\ude00","n":5e-324},
    {"_id":"é","_base64":"${img}","z":"\ud800\udc00","t":"\uffff"},
    {"_id":"e\u0301","_base64":"${img}","z":"a","t":"A"},
    {"_id":"ı","_base64":"${img}","z":"I","t":"İ"}
  ],"fields_to_return":["*"]}`);
  await c.coll('x.insert.odd', 'custom', 'insert', oddKeys);
  await c.coll('x.get.odd', 'custom', 'get', { records: ['k1', 'K1', 'k1 ', 'é', 'é', 'ı', 'I', 'i', 'K1 '].map((_id) => ({ _id })) });
  const oddFilters: unknown[] = [
    { 'a.b': 1 }, { 'a.b': 2 }, { 'quo"te': 'q' }, { 'back\\slash': 'b' }, { 'new\nline': 'n' }, { 'sp ace': 's' }, { ünï: 'u' }, { 'emoji😀': 'e' },
    { v: 0 }, { v: -0 }, { v: { $lt: 0 } }, { w: 1 }, { x: 100 }, { y: { $lt: 1e-6 } }, { n: { $gt: 1e299 } }, { n: { $lt: 0 } }, { n: { $gt: 0, $lt: 1e-300 } },
    { z: { $gt: '｡' } }, { z: { $gt: '￿' } }, { z: { $lt: '😀' } }, { t: { $gte: '😀' } }, { t: { $lt: '￿' } }, { z: { $regex: '^.$' } }, { t: { $regex: '^[😀-😃]$' } }, { z: { $regex: '^[\uff00-\uffff]$' } },
    { l: { $regex: '^b', $options: 'm' } }, { l: { $regex: 'a.b' } }, { l: { $regex: 'a.b', $options: 's' } }, { r: { $regex: 'line1$', $options: 'm' } }, { r: { $regex: '^line2$', $options: 'm' } },
    { z: { $regex: 'i', $options: 'i' } }, { t: { $regex: 'i', $options: 'i' } }, { t: { $regex: 'İ', $options: 'i' } }, { z: { $regex: 'ı', $options: 'i' } },
    { _id: { $regex: '^k1$', $options: 'i' } }, { _id: { $gt: 'k' } }, { _id: { $lt: 'é' } }, { _id: 'é' }, { _id: { $in: ['K1', 'k1 '] } },
    { z: { $in: ['😀', 'ｱ'] } }, { t: { $nin: ['A', '😀'] } }, { z: { $exists: true }, t: { $exists: false } },
  ];
  for (const [i, filter] of oddFilters.entries()) await c.coll(`x.find.${i}`, 'custom', 'find', { filter, limit: 100, fields_to_return: ['_id'] });
  await c.coll('x.fields', 'custom', 'find', { filter: { _id: { $in: ['k1', 'K1'] } }, fields_to_return: ['a.b', 'quo"te', 'new\nline', 'v', 'w', 'x', 'y', 'n', 'nested.list.q', 'missing'] });
  await c.coll('x.fields2', 'photo', 'find', { filter: { i: { $lt: 3 } }, fields_to_return: ['nested.list.q', 'tags', 'v.a', 'v.k'] });
  await c.coll('x.update.odd', 'custom', 'update', { records: [{ _id: 'k1', 'a.b': null, 'sp ace': null, 'new.deep.key': 'x' }, { _id: 'K1', 'a.b': 5 }] });
  await c.coll('x.get.odd2', 'custom', 'get', { records: [{ _id: 'k1' }, { _id: 'K1' }] });
  // the same _id deleted and inserted again: where does it list?
  await c.coll('x.del', 'custom', 'delete', { records: [{ _id: 'K1' }] });
  await c.coll('x.reinsert', 'custom', 'insert', { records: [{ _id: 'K1', _base64: img, back: true }] });
  await c.coll('x.find.order', 'custom', 'find', { filter: { _id: { $in: ['k1', 'K1', 'é', 'ı'] } } });
  await c.coll('x.all', 'custom', 'allRecords', { only_ids: true, size: 5, page: 2 });
  for (const text of ['😀', 'ünï', 'line1', 'ｱ', 'Straße', 'q']) await c.call(`x.text.${text}`, 'POST', '/similarity/text/photos/v2/text', { query_record: { _text_data: text }, k: 5 }, { 'collection-id': c.s.photo });
}

/** Text search over titles in several languages: the two engines stem and rank each their own way. */
const titles = ['Running shoes for men', 'Zapatos rojos de cuero', 'Chaussures de course', 'Kaffeetassen aus Porzellan', 'Сумка из кожи', 'Zabawka dla dzieci', 'Product catalog 2024', 'Vintage leather wallets', 'Jacke aus Leder', 'Leather jacket', 'Camera bag', 'Altavoces portátiles', 'Luces LED', 'B-1234 spare part', 'A-1234 spare part', 'x-ray film', 'Café crème', 'naïve art', 'Ölgemälde mit Rahmen', 'Çanta deri', 'hammock', 'Jackpot slot machine', 'Nikola Tesla', 'Giraffes', 'The the the', "L'été indien", 'Uhr mit Lederarmband', '日本のカメラ', 'كرة القدم', 'Ｔシャツ'];
const queries = ['running', 'run', 'shoe', 'zapato', 'zapatos', 'chaussure', 'kaffeetasse', 'кожа', 'кожи', 'zabawki', 'zabawka', 'catalogue', 'catalog', 'wallet', 'jacken', 'jacke', 'leather', 'cameo', 'camera', 'altavoz', 'luz', 'b-1234', '1234', 'x ray', 'cafe creme', 'naive', 'olgemalde', 'ölgemälde', 'canta', 'hammer', 'jackal', 'nikon', 'giraffe', 'the', "l'ete", 'ete', 'uhr', 'カメラ', 'كرة', 't-shirt', 'tシャツ', 'LEATHER JACKET', 'leather -jacket', '"leather jacket"', 'leather OR shoes', 'leath*', 'jacket:*', 'a & b', 'NEAR(leather jacket)'];

async function textLanguages(c: Client) {
  const files = photoFiles(titles.length);
  for (let i = 0; i < titles.length; i += 10) {
    const records = titles.slice(i, i + 10).map((title, j) => ({ _id: `t${i + j}`, title, _base64: fs.readFileSync(files[i + j]!.file).toString('base64') }));
    await c.call(`tl.insert.${i}`, 'POST', '/similarity/photos/v2/insert', { records }, { 'collection-id': c.s.photo });
  }
  for (const q of queries) await c.call(`tl.${q}`, 'POST', '/similarity/text/photos/v2/text', { query_record: { _text_data: q }, k: 8, filter: { title: { $exists: true } } }, { 'collection-id': c.s.photo });
}

async function textSearch(c: Client) {
  const t = (step: string, body: unknown) => c.call(step, 'POST', '/similarity/text/photos/v2/text', body, { 'collection-id': c.s.photo });
  for (const text of ['leopard', 'Straße', 'strasse', 'valeur', 'école', 'ECOLE', 'テスト', 'red', 'airplanes odd', 'zzzz']) {
    await t(`text.${text}`, { query_record: { _text_data: text }, k: 10, fields_to_return: ['_id'] });
    await t(`text.f.${text}`, { query_record: { _text_data: text }, k: 10, filter: { flag: { $ne: null } } });
  }
  await t('text.page', { query_record: { _text_data: 'odd' }, k: 3, from: 2 });
  await t('text.colors', { query_record: { _dominant_colors: { luv_colors: [[50, 0, 0]], percentages: [50] } }, k: 5 });
  await c.call('text.custom', 'POST', '/similarity/text/photos/v2/text', { query_record: { _text_data: 'odd' } }, { 'collection-id': c.s.custom });
}

async function matching(c: Client) {
  const files = photoFiles(4);
  const recs = files.map((f, i) => ({ _id: `m${i}`, _base64: fs.readFileSync(f.file).toString('base64') }));
  await c.call('match.hash', 'POST', '/image_matching/v2/visual_hash', { records: recs.slice(0, 2) });
  await c.call('match.dups', 'POST', '/image_matching/v2/remove_duplicates', { records: [...recs, { ...recs[0], _id: 'copy' }], range: 10 });
  await c.call('match.rank', 'POST', '/image_matching/v2/rank_images', { query_record: recs[0], records: [...recs.slice(1), { _id: 'bad', _base64: 'aGVsbG8=' }] });
}

async function requests(c: Client) {
  for (let i = 0; i < 25; i++) {
    const type = i % 3 === 0 ? 'upscaler' : 'card-grader';
    const endpoint = type === 'upscaler' ? 'upscale_2x' : 'grade';
    await c.call(`req.submit.${i}`, 'POST', '/account/v2/request/', { type, endpoint, records: [{ _id: `q${i}`, _base64: 'aGVsbG8=', note: 'ü'.repeat(i) }] });
  }
  for (const q of ['', 'page_size=7', 'page_size=7&page=2', 'page_size=7&page=4', 'page_size=7&page=5', 'status=created', 'status=DONE', 'status=bogus', 'type=UPSCALER', 'type=card-grader&page_size=3&page=2', 'type=bogus', 'page_size=101', 'page_size=0', 'webhook_state=waiting', 'status=&type=']) {
    const r = await c.call(`req.list.${q}`, 'GET', `/account/v2/request/?${q}`);
    if (q === 'page_size=7' && r.json.next) await c.call('req.list.next', 'GET', new URL(r.json.next).pathname + new URL(r.json.next).search);
  }
}

// ------------------------------------------------------------------------- normalising and diffing

const uuidRe = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const timeRe = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\b/g;

function normalise(entries: Entry[], base: string, server: Server): string[] {
  const ids = new Map<string, string>();
  const id = (u: string) => {
    if (!ids.has(u)) ids.set(u, `<id${ids.size}>`);
    return ids.get(u)!;
  };
  const serverTimes = new Set(['started', 'ended', 'created_at', 'updated_at', 'corrected_at', 'created', 'modified', 'next_attempt', 'date']);
  const drop = new Set(['statistics', 'request_id', 'proc_id', 'etag', 'up_to', 'OperationTime', 'processing time']);
  const fix = (v: unknown, key = ''): unknown => {
    if (Array.isArray(v)) return v.map((x) => fix(x));
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (!drop.has(k)) o[k] = fix(x, k);
      return o;
    }
    if (typeof v === 'string') {
      let s = v.split(base).join('<base>').split(server.photo).join('<photo>').split(server.custom).join('<custom>');
      s = s.replace(/up_to=\d+/g, 'up_to=<n>').replace(/expires=\d+&sig=[0-9a-f]+/g, 'expires=<e>&sig=<s>').replace(/\/media\/[A-Za-z0-9_\-./]+/g, '/media/<key>');
      s = s.replace(uuidRe, id);
      if (serverTimes.has(key) && timeRe.test(s)) s = '<time>';
      timeRe.lastIndex = 0;
      // a collection's ping names its text engine (SQLite FTS5 or PostgreSQL full-text search): a difference by design
      s = s.replace(/keyword engine \((SQLite FTS5|PostgreSQL full-text search),? BM25/, 'keyword engine (<engine> BM25');
      if (/^Session \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/.test(s)) s = 'Session <default name>';
      return s;
    }
    if (typeof v === 'number' && key === 'credits') return '<credits>';
    return v;
  };
  // `random` is a sample in random order: compared as a set
  for (const e of entries) if (e.step === 'random' && Array.isArray((e.answer as { answer_records?: unknown[] })?.answer_records)) (e.answer as { answer_records: { _id: string }[] }).answer_records.sort((x, y) => (x._id < y._id ? -1 : 1));
  return entries.map((e) => JSON.stringify(fix({ step: e.step, method: e.method, url: e.url, body: e.body, status: e.status, answer: e.answer })));
}

/**
 * Distances from the two vector indexes differ in float32 rounding (docs/api-decisions.md, `range`: 14 of 576 in the
 * fourth decimal after a move): numbers under a key naming a distance are compared to within 0.001, every other
 * value exactly.
 */
function sameEnough(a: string, b: string): boolean {
  if (a === b) return true;
  const same = (x: unknown, y: unknown, near: boolean): boolean => {
    if (typeof x === 'number' && typeof y === 'number') return x === y || (near && Math.abs(x - y) <= 1e-3);
    if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => same(v, y[i], near));
    if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y)) {
      const kx = Object.keys(x);
      const ky = Object.keys(y);
      return kx.length === ky.length && kx.every((k, i) => k === ky[i] && same((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], near || /distance/i.test(k)));
    }
    return x === y;
  };
  return same(JSON.parse(a), JSON.parse(b), false);
}

async function main() {
  const servers = await Promise.all([startServer('sqlite', 18431), startServer('postgres', 18432)]);
  const clients = servers.map((s) => new Client(s));
  const parts: [string, (c: Client) => Promise<void>][] = [
    ['sessions', sessions],
    ['collections', (c) => collections(c, Number(process.env.DIFF_RECORDS ?? 40))],
    ['text', textSearch],
    ['matching', matching],
    ['requests', requests],
    ['extra', extra],
    ['textlang', textLanguages],
  ];
  try {
    for (const [name, part] of parts) {
      if (only && !only.includes(name)) continue;
      const t0 = Date.now();
      // one after the other, not at once: a part's answers must not depend on the other server's load
      for (const c of clients) await part(c);
      process.stderr.write(`${name}: ${clients[0]!.log.length} calls so far, ${Date.now() - t0} ms\n`);
    }
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => (s.proc?.exitCode !== null ? resolve(null) : (s.proc.once('exit', resolve), s.proc.kill('SIGTERM'))))));
  }
  const [a, b] = clients.map((c) => normalise(c.log, c.s.base, c.s)) as [string[], string[]];
  fs.writeFileSync(path.join(outDir, 'sqlite.jsonl'), a.join('\n') + '\n');
  fs.writeFileSync(path.join(outDir, 'postgres.jsonl'), b.join('\n') + '\n');
  let diffs = 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== undefined && b[i] !== undefined && sameEnough(a[i]!, b[i]!)) continue;
    diffs++;
    console.log(`--- ${i} sqlite\n${a[i]}\n+++ ${i} postgres\n${b[i]}\n`);
  }
  console.log(`${a.length} calls each; ${diffs} differ; transcripts in ${outDir}`);
  for (const s of servers) fs.rmSync(s.env.LOUPE_DATA_DIR!, { recursive: true, force: true });
  process.exitCode = diffs ? 1 : 0;
}

await main();
