import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HnswIndex, estimateMemory, type ArenaChunk, type IndexChange, type IndexRow, type IndexSource } from './hnsw-index.ts';
import { ARENA_CHUNK, encodeI8 } from './arena-layout.ts';
import { seededRandom as rng } from '../util/seeded-random.ts';

const DIMS = 16;


function vectors(count: number, seed: number, dims = DIMS): Float32Array[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: dims }, () => r() * 2 - 1);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  });
}

/** The store's contract in memory: live rows plus a change log with a seq per change. */
class MemorySource implements IndexSource {
  readonly rows = new Map<number, Float32Array>();
  log: IndexChange[] = [];
  seq = 0;
  historyComplete = true;
  constructor(readonly dimensions = DIMS) {}
  put(key: number, vector: Float32Array): number {
    this.rows.set(key, vector);
    this.log.push({ key, vector, seq: ++this.seq });
    return this.seq;
  }
  del(key: number): number {
    this.rows.delete(key);
    this.log.push({ key, vector: null, seq: ++this.seq });
    return this.seq;
  }
  all() {
    return [...this.rows].map(([key, vector]) => ({ key, vector }));
  }
  async changesSince(seq: number) {
    // Mimic a store that lists upserts before deletions regardless of order.
    if (!this.historyComplete) return null;
    const after = this.log.filter((c) => c.seq > seq);
    return [...after.filter((c) => c.vector), ...after.filter((c) => !c.vector)];
  }
  currentSeq() {
    return this.seq;
  }
}

function bruteForce(rows: Map<number, Float32Array>, q: Float32Array, k: number, allowed: (key: number) => boolean = () => true): number[] {
  const scored: { key: number; d: number }[] = [];
  for (const [key, v] of rows) {
    if (!allowed(key)) continue;
    let dot = 0;
    for (let j = 0; j < q.length; j++) dot += q[j]! * v[j]!;
    scored.push({ key, d: 1 - dot });
  }
  scored.sort((a, b) => a.d - b.d || a.key - b.key);
  return scored.slice(0, k).map((s) => s.key);
}

let dir: string;
let file: string;
const open: HnswIndex[] = [];
async function openIndex(source: IndexSource, extra: Partial<Parameters<typeof HnswIndex.open>[0]> = {}): Promise<HnswIndex> {
  const index = await HnswIndex.open({ file, dimensions: source.dimensions, source, threads: 2, ...extra });
  open.push(index);
  return index;
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-hnsw-'));
  file = path.join(dir, 'c1.usearch');
});
afterEach(async () => {
  for (const i of open.splice(0)) await i.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('HnswIndex basics', () => {
  it('adds, searches, replaces and removes', async () => {
    const source = new MemorySource();
    const index = await openIndex(source);
    expect(index.openOutcome).toBe('created');
    expect(index.search(vectors(1, 9)[0]!, 5).keys).toEqual([]);
    const vs = vectors(200, 1);
    vs.forEach((v, i) => index.add(i + 1, v));
    expect(index.size).toBe(200);
    const hit = index.search(vs[41]!, 5, { expansion: 1000 });
    expect(hit.keys[0]).toBe(42);
    expect(hit.distances[0]).toBeCloseTo(0, 2);
    expect([...hit.distances].sort((a, b) => a - b)).toEqual(hit.distances);

    // Replace key 42 with another vector: the old one no longer finds it first.
    const other = vectors(1, 77)[0]!;
    index.add(42, other);
    expect(index.size).toBe(200);
    expect(index.search(other, 1, { expansion: 1000 }).keys).toEqual([42]);
    expect(index.search(vs[41]!, 5).keys).not.toContain(42);

    expect(index.remove(42)).toBe(true);
    expect(index.remove(42)).toBe(false);
    expect(index.size).toBe(199);
    expect(index.search(other, 200).keys).not.toContain(42);
    expect(index.search(other, 500).keys).toHaveLength(199);
  });

  it('pages of a small index, asked with a growing k as `from` does, are slices of one exact ordering', async () => {
    const source = new MemorySource(64);
    const vs = vectors(600, 21, 64);
    vs.forEach((v, i) => source.put(i, v));
    const index = await openIndex(source);
    const q = vectors(1, 22, 64)[0]!;
    // the graph's pool at k = from + 25 left out some records of the later pages and gave others twice
    const walked = [0, 25, 50, 75, 100, 125, 150, 175].flatMap((from) => index.search(q, from + 25).keys.slice(from));
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked).toEqual(bruteForce(source.rows, q, 200));
    expect(index.search(q, 10).strategy).toBe('exact');
  });

  it('pages of a large clustered index share one pool up to 128 deep: walked with `from`, no record twice or missed, and a stored vector finds itself', async () => {
    // tight clusters of near copies, as many photos of one product give: the graph's small pools missed
    // close records (recall@30 0.90) and the queried record itself, and each page had its own pool
    const source = new MemorySource(64);
    const centres = vectors(60, 31, 64);
    const r = rng(32);
    for (let i = 0; i < 3000; i++) {
      const c = centres[i % centres.length]!;
      const v = c.map((x) => x + (r() - 0.5) * 0.02);
      const n = Math.hypot(...v);
      source.put(i, v.map((x) => x / n));
    }
    const index = await openIndex(source);
    for (const key of [7, 1234, 2999]) {
      const q = source.rows.get(key)!;
      const walked = [0, 30, 60, 90].flatMap((from) => index.search(q, from + 30).keys.slice(from));
      expect(new Set(walked).size, `query ${key}`).toBe(walked.length);
      expect(walked, `query ${key}`).toEqual(index.search(q, 120).keys);
      expect(index.search(q, 3).keys[0], `query ${key}`).toBe(key);
    }
    // one pool for every page up to 128 deep (each page had its own: 64, 128, 256)
    const q = source.rows.get(5)!;
    expect([30, 60, 90, 120].map((k) => index.search(q, k))).toMatchObject([30, 60, 90, 120].map(() => ({ strategy: 'hnsw', pool: 256 })));
    expect(index.search(q, 200).pool).toBe(512);
  });

  it('opens and searches where its file cannot be written, saying so in the log (every search answered 500 after a restart)', async () => {
    const source = new MemorySource();
    const vs = vectors(50, 31);
    vs.forEach((v, i) => source.put(i, v));
    // a folder that cannot be made: its parent is a file (root ignores a read-only mode)
    fs.writeFileSync(path.join(dir, 'not-a-folder'), '');
    const logged: string[] = [];
    const index = await HnswIndex.open({ file: path.join(dir, 'not-a-folder', 'c.usearch'), dimensions: DIMS, source, threads: 1, log: (m) => logged.push(m) });
    open.push(index);
    expect(index.search(vs[7]!, 1).keys).toEqual([7]);
    expect(logged).toContain('vector index not saved');
    await expect(index.checkpoint(source.seq)).rejects.toThrow();
  });

  it('rejects wrong dimensions and bad keys', async () => {
    const index = await openIndex(new MemorySource());
    expect(() => index.add(1, new Float32Array(DIMS + 1))).toThrow(/dimensions/);
    expect(() => index.add(-1, new Float32Array(DIMS))).toThrow(/non-negative/);
    expect(() => index.search(new Float32Array(3), 1)).toThrow(/dimensions/);
  });

  it('copies queries that are views into a larger buffer', async () => {
    const index = await openIndex(new MemorySource());
    const vs = vectors(50, 3);
    vs.forEach((v, i) => index.add(i, v));
    const backing = new Float32Array(DIMS * 3);
    backing.set(vs[7]!, DIMS);
    const view = backing.subarray(DIMS, 2 * DIMS);
    expect(index.search(view, 1, { allowedKeys: [7, 8, 9] }).keys).toEqual([7]);
    expect(index.search(view, 1, { expansion: 1000 }).keys).toEqual([7]);
  });

  it('estimates memory from the layout', () => {
    const e = estimateMemory({ count: 1_000_000, dimensions: 1792, quantization: 'i8', connectivity: 16 });
    expect(e.vectors).toBe(1792e6);
    expect(e.graph / 1e6).toBeGreaterThan(150);
    expect(e.graph / 1e6).toBeLessThan(250);
  });
});

describe('HnswIndex filtered search', () => {
  const N = 3000;
  let source: MemorySource;
  let index: HnswIndex;
  const vs = vectors(N, 5);
  beforeEach(async () => {
    source = new MemorySource();
    vs.forEach((v, i) => source.put(i, v));
    index = await openIndex(source);
  });

  it('tiny allowed sets give every match, exactly', () => {
    const q = vectors(1, 11)[0]!;
    const res = index.search(q, 10, { allowedKeys: [5, 17, 2999, 123456] });
    expect(res.strategy).toBe('exact');
    expect(res.keys.sort((a, b) => a - b)).toEqual([5, 17, 2999]);
    const forty = Array.from({ length: 40 }, (_, i) => i * 71);
    const r40 = index.search(q, 30, { allowedKeys: new Set(forty) });
    expect(r40.keys).toEqual(bruteForce(source.rows, q, 30, (k) => forty.includes(k)));
  });

  it('an allowed set of at most exactBelow keys is searched exactly whatever its share, so pages walked with from are slices of one order (h87)', () => {
    // half of 3,000: the graph's post-filtered pool (about 90) missed some of the true top 30, and pages repeated and skipped
    const keys = new Set(Array.from({ length: N / 2 }, (_, i) => i * 2));
    for (const q of vectors(20, 13)) {
      const res = index.search(q, 30, { allowedKeys: keys });
      expect(res.strategy).toBe('exact');
      expect(res.keys).toEqual(bruteForce(source.rows, q, 30, (k) => keys.has(k)));
    }
  });

  it('large allowed sets return k allowed results close to exact', () => {
    const allowed = (key: number) => key % 2 === 0;
    const keys = new Set(Array.from({ length: N / 2 }, (_, i) => i * 2));
    let overlap = 0;
    for (const q of vectors(20, 12)) {
      const res = index.search(q, 30, { allowedKeys: keys, exactBelow: 100 });
      expect(res.strategy).toBe('hnsw-filtered');
      expect(res.keys).toHaveLength(30);
      expect(res.keys.every(allowed)).toBe(true);
      const want = new Set(bruteForce(source.rows, q, 30, allowed));
      overlap += res.keys.filter((k) => want.has(k)).length;
    }
    expect(overlap / (20 * 30)).toBeGreaterThan(0.95);
  });

  it('brute force over a large key set (int8 pass, float32 rescoring) is exact, and a reused set sees later changes', () => {
    // 1100 of 3000 keys at k = 60: a graph pool would have to be ~245 deep, so brute force.
    const keys = new Set(Array.from({ length: 1100 }, (_, i) => i + 500));
    const allowed = (key: number) => keys.has(key);
    for (const q of vectors(10, 14)) {
      const res = index.search(q, 60, { allowedKeys: keys, exactBelow: 5000 });
      expect(res.strategy).toBe('exact');
      expect(res.keys).toEqual(bruteForce(source.rows, q, 60, allowed));
      const d = res.distances[0]!;
      const v = source.rows.get(res.keys[0]!)!;
      expect(d).toBeCloseTo(1 - q.reduce((s, x, j) => s + x * v[j]!, 0), 5);
    }
    // The same Set again: the gathered matrix is reused only while the index is unchanged.
    // k stays at 60 so these searches take the brute-force path too: at k = 5 the pool would be
    // small enough for the graph, whose answer is approximate and depends on a threaded build.
    const q = vectors(1, 15)[0]!;
    index.search(q, 60, { allowedKeys: keys, exactBelow: 5000 });
    index.add(600, q);
    index.remove(601);
    const after = index.search(q, 60, { allowedKeys: keys, exactBelow: 5000 });
    expect(after.strategy).toBe('exact');
    expect(after.keys[0]).toBe(600);
    expect(after.keys).not.toContain(601);
    source.put(600, q);
    source.del(601);
    expect(after.keys).toEqual(bruteForce(source.rows, q, 60, allowed));
  });

  it('a rare predicate still yields k results (oversampling, then exact)', () => {
    const allowed = (key: number) => key % 97 === 3;
    const matches = [...source.rows.keys()].filter(allowed).length;
    expect(matches).toBeGreaterThan(30);
    for (const q of vectors(5, 13)) {
      const res = index.search(q, 30, { allowed });
      expect(res.keys).toHaveLength(30);
      expect(res.keys.every(allowed)).toBe(true);
      expect(res.keys).toEqual(bruteForce(source.rows, q, 30, allowed));
    }
  });

  it('exactly k matches anywhere in the collection are all returned', () => {
    const chosen = new Set([1, 400, 801, 1202, 1603, 2004, 2405, 2806, 2999, 0]);
    const q = vs[1500]!;
    for (const opts of [{ allowed: (k: number) => chosen.has(k) }, { allowedKeys: chosen, exactBelow: 0 }, { allowedKeys: chosen }]) {
      const res = index.search(q, 10, opts);
      expect(new Set(res.keys)).toEqual(chosen);
    }
  });

  it('results are ordered by distance, then key', () => {
    const dup = vs[10]!;
    index.add(5000, dup);
    index.add(4000, dup);
    const res = index.search(dup, 3, { allowedKeys: [10, 4000, 5000] });
    expect(res.keys).toEqual([10, 4000, 5000]);
  });
});

describe('HnswIndex arena chunks (a load read on a worker thread, h367)', () => {
  /** Rows as a fill worker sends them: whole chunks, the vectors' int8 codes made beside them. */
  function chunk(rows: [number, Float32Array][]): ArenaChunk {
    const vectors = new Float32Array(ARENA_CHUNK * DIMS);
    const codes = new Int8Array(ARENA_CHUNK * DIMS);
    rows.forEach(([, v], i) => {
      vectors.set(v, i * DIMS);
      encodeI8(vectors, i * DIMS, DIMS, codes, i * DIMS);
    });
    return { keys: Float64Array.from(rows.map(([k]) => k)), vectors, codes };
  }

  it('takes whole chunks as they are, copies the rest (a part chunk, keys out of order, a key twice), and answers as rows read one by one', async () => {
    const vs = vectors(3000, 367);
    const rows: [number, Float32Array][] = vs.map((v, i) => [3 * i + 1, v]);
    const byRow = new MemorySource();
    for (const [k, v] of rows) byRow.put(k, v);
    // whole, then a part (476 rows), then one after the part (copied), then keys out of order and twice, then rows
    const parts: (IndexRow | ArenaChunk)[] = [chunk(rows.slice(0, 1024)), chunk(rows.slice(1024, 1500)), chunk(rows.slice(1500, 2524))];
    parts.push(chunk([rows[2600]!, rows[2524]!, ...rows.slice(2525, 2600), rows[2524]!]));
    for (const [key, vector] of rows.slice(2601)) parts.push({ key, vector });
    const byChunk = { dimensions: DIMS, all: () => parts, changesSince: async () => [], currentSeq: () => 0 };
    const a = await openIndex(byRow);
    file = path.join(dir, 'c2.usearch');
    const b = await openIndex(byChunk);
    expect(b.size).toBe(3000);
    // the first chunk's buffers are the arena's own (no copy)
    expect((b as unknown as { arena: { chunks: Float32Array[] } }).arena.chunks[0]).toBe((parts[0] as ArenaChunk).vectors);
    for (const [key, v] of rows) expect(b.vectorOf(key)).toEqual(v);
    // exact over 2,000 keys: the int8 codes pick what is rescored, so codes made apart must be the arena's own
    const allowedKeys = new Set(rows.filter((_, i) => i % 3).map(([k]) => k));
    for (const q of vectors(20, 368)) expect(b.search(q, 10, { allowedKeys, exactBelow: 3000 })).toEqual(a.search(q, 10, { allowedKeys, exactBelow: 3000 }));
  });

  it('refuses a chunk of another size', async () => {
    const bad = { keys: Float64Array.of(1), vectors: new Float32Array(DIMS), codes: new Int8Array(DIMS) };
    await expect(openIndex({ dimensions: DIMS, all: () => [bad], changesSince: async () => [], currentSeq: () => 0 })).rejects.toThrow(/an arena chunk holds 1024 vectors/);
  });
});

describe('HnswIndex persistence', () => {
  async function seeded(count = 300): Promise<{ source: MemorySource; vs: Float32Array[] }> {
    const source = new MemorySource();
    const vs = vectors(count, 21);
    vs.forEach((v, i) => source.put(i + 1, v));
    return { source, vs };
  }

  it('checkpoints and reloads without rebuilding', async () => {
    const { source, vs } = await seeded();
    const a = await openIndex(source);
    expect(a.openOutcome).toBe('rebuilt');
    const before = a.search(vs[3]!, 10, { expansion: 1000 }).keys;
    await a.checkpoint(source.currentSeq());
    await a.close();
    const meta = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as { seq: number; count: number };
    expect(meta).toMatchObject({ seq: 300, count: 300 });
    const b = await openIndex(source);
    expect(b.openOutcome).toBe('loaded');
    expect(b.search(vs[3]!, 10, { expansion: 1000 }).keys).toEqual(before);
  });

  it('removes a checkpoint cut short (its temp files) when it opens, the saved index loaded as it was', async () => {
    const { source, vs } = await seeded();
    const a = await openIndex(source);
    await a.checkpoint(source.currentSeq());
    await a.close();
    fs.writeFileSync(`${file}.tmp`, 'part of a graph');
    fs.writeFileSync(`${file}.json.tmp`, '{"seq":');
    const b = await openIndex(source);
    expect(b.openOutcome).toBe('loaded');
    expect(fs.existsSync(`${file}.tmp`)).toBe(false);
    expect(fs.existsSync(`${file}.json.tmp`)).toBe(false);
    expect(b.search(vs[3]!, 1, { expansion: 1000 }).keys).toEqual([4]);
  });

  it('catches up from the changes after the saved seq', async () => {
    const { source, vs } = await seeded();
    const a = await openIndex(source);
    await a.close();
    const fresh = vectors(20, 22);
    fresh.forEach((v, i) => source.put(1000 + i, v));
    source.del(5);
    const b = await openIndex(source);
    expect(b.openOutcome).toBe('caught-up');
    expect(b.size).toBe(319);
    expect(b.search(fresh[4]!, 1, { expansion: 1000 }).keys).toEqual([1004]);
    expect(b.search(vs[4]!, 400).keys).not.toContain(5);
  });

  it('writes during the open (a server loading its indexes takes them, h353) are caught up, not a rebuild: the rows read and the graph agree after', async () => {
    const { source, vs } = await seeded();
    const a = await openIndex(source);
    await a.checkpoint(source.currentSeq());
    await a.close();
    const moved = vectors(2, 23);
    const fresh = vectors(1, 24)[0]!;
    // the rows read a page at a time, the writes landing between pages: on rows already read (3 deleted, 5 given a new
    // vector), one not read yet (250 deleted), and one after them all (2000 inserted)
    const during: IndexSource = {
      dimensions: DIMS,
      all: async function* () {
        const rows = source.all();
        for (let i = 0; i < rows.length; i++) {
          if (i === 150) {
            source.del(3);
            source.put(5, moved[0]!);
            source.del(250);
            source.put(2000, fresh);
          }
          if (source.rows.has(rows[i]!.key)) yield { key: rows[i]!.key, vector: source.rows.get(rows[i]!.key)! };
        }
      },
      changesSince: (seq) => source.changesSince(seq),
      currentSeq: () => source.currentSeq(),
    };
    const logged: string[] = [];
    const b = await openIndex(during, { log: (m) => logged.push(m) });
    expect(logged).not.toContain('vector index rebuilding');
    expect(b.openOutcome).toBe('caught-up');
    expect(b.size).toBe(source.rows.size);
    expect(b.has(3) || b.has(250)).toBe(false);
    expect(b.search(fresh, 1, { expansion: 1000 }).keys).toEqual([2000]);
    expect(b.search(moved[0]!, 1, { expansion: 1000 }).keys).toEqual([5]);
    expect(b.vectorOf(5)).toEqual(moved[0]);
    expect(b.search(vs[2]!, 400).keys).not.toContain(3);
    // exact over the arena agrees with a brute force over the rows as they are
    expect(b.search(vs[7]!, 10, { allowedKeys: new Set(source.rows.keys()) }).keys).toEqual(bruteForce(source.rows, vs[7]!, 10));
  });

  const damage: [string, () => void][] = [
    ['missing file', () => fs.rmSync(file)],
    ['missing sidecar', () => fs.rmSync(`${file}.json`)],
    ['truncated file', () => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2))],
    [
      'corrupted bytes',
      () => {
        const buf = fs.readFileSync(file);
        for (let i = 200; i < 260; i++) buf[i] = buf[i]! ^ 0xff;
        fs.writeFileSync(file, buf);
      },
    ],
    ['garbage sidecar', () => fs.writeFileSync(`${file}.json`, '{"format":')],
    ['sidecar seq ahead of the database', () => fs.writeFileSync(`${file}.json`, fs.readFileSync(`${file}.json`, 'utf8').replace(/"seq":\d+/, '"seq":999999'))],
  ];
  for (const [label, harm] of damage) {
    it(`rebuilds on ${label}, same answers`, async () => {
      const { source, vs } = await seeded();
      const a = await openIndex(source);
      await a.close();
      harm();
      const b = await openIndex(source);
      expect(b.openOutcome).toBe('rebuilt');
      expect(b.size).toBe(300);
      // A pool as large as the collection makes the graph answer exhaustively, so answers compare exactly.
      for (const q of vs.slice(0, 20)) expect(b.search(q, 10, { expansion: 1000 }).keys).toEqual(bruteForce(source.rows, q, 10));
      // The rebuild checkpointed, so the next open loads.
      await b.close();
      expect((await openIndex(source)).openOutcome).toBe('loaded');
    });
  }

  it('tells a rebuild as it goes (vectors inserted of the total, the reason) and stops it when the teller throws', async () => {
    const { source } = await seeded();
    await (await openIndex(source)).close();
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const told: number[] = [];
    const b = await openIndex(source, { buildBatch: 128, onRebuild: (r) => void told.push(r.inserted, r.total, r.reason === 'index file size' ? 1 : 0) });
    expect(b.openOutcome).toBe('rebuilt');
    expect(told).toEqual([0, 300, 1, 128, 300, 1, 256, 300, 1, 300, 300, 1]);
    await b.close();
    fs.truncateSync(file, 10);
    await expect(openIndex(source, { onRebuild: () => Promise.reject(new Error('stopping')) })).rejects.toThrow('stopping');
  });

  it('rebuilds when the saved index has another dimension', async () => {
    const small = new MemorySource(8);
    vectors(50, 30, 8).forEach((v, i) => small.put(i, v));
    await (await openIndex(small)).close();
    const { source, vs } = await seeded(100);
    const b = await openIndex(source);
    expect(b.openOutcome).toBe('rebuilt');
    expect(b.openReason).toMatch(/dimensions/);
    expect(b.search(vs[9]!, 1, { expansion: 1000 }).keys).toEqual([10]);
  });

  it('rebuilds when parameters change or history is incomplete', async () => {
    const { source } = await seeded(100);
    await (await openIndex(source)).close();
    const b = await openIndex(source, { quantization: 'f16' });
    expect(b.openOutcome).toBe('rebuilt');
    await b.close();
    source.put(500, vectors(1, 40)[0]!);
    source.historyComplete = false;
    const c = await openIndex(source, { quantization: 'f16' });
    expect(c.openOutcome).toBe('rebuilt');
    expect(c.openReason).toMatch(/history/);
    expect(c.size).toBe(101);
  });

  it('repairs a change log that lost a deletion (index holds a key the database does not)', async () => {
    const { source } = await seeded(100);
    await (await openIndex(source)).close();
    source.del(50);
    source.log = source.log.filter((c) => !(c.key === 50 && c.vector === null));
    const b = await openIndex(source);
    expect(b.openOutcome).toBe('rebuilt');
    expect(b.openReason).toMatch(/diverged/);
    expect(b.search(vectors(1, 1)[0]!, 200).keys).not.toContain(50);
  });

  it('after a simulated crash (saved at seq 10, database at 25) catch-up gives exactly the live set', async () => {
    const source = new MemorySource();
    const vs = vectors(40, 50);
    const a = await openIndex(source);
    // Seq 1–10: keys 1..10 inserted, each applied to the index after the "commit".
    for (let i = 1; i <= 10; i++) {
      source.put(i, vs[i]!);
      a.add(i, vs[i]!);
    }
    expect(source.currentSeq()).toBe(10);
    await a.checkpoint(10);
    // descriptors of customers' photos: the owner's only (they were 0644 under the usual umask)
    for (const f of [file, `${file}.json`]) expect((fs.statSync(f).mode & 0o777).toString(8), f).toBe('600');
    // Seq 11–25 reach the database; only some reach the index before the crash (no checkpoint).
    const ops: (() => number)[] = [
      () => source.put(11, vs[11]!),
      () => source.put(12, vs[12]!),
      () => source.del(3),
      () => source.put(4, vs[30]!), // update: new vector for key 4
      () => source.put(13, vs[13]!),
      () => source.del(11),
      () => source.put(14, vs[14]!),
      () => source.del(7),
      () => source.put(7, vs[31]!), // key reused after deletion
      () => source.put(15, vs[15]!),
      () => source.del(1),
      () => source.put(16, vs[16]!),
      () => source.put(17, vs[17]!),
      () => source.del(16),
      () => source.put(18, vs[18]!),
    ];
    ops.forEach((op, i) => {
      op();
      if (i < 6) {
        const last = source.log.at(-1)!;
        if (last.vector) a.add(last.key, last.vector);
        else a.remove(last.key);
      }
    });
    expect(source.currentSeq()).toBe(25);
    // Crash: no close, no checkpoint; the next process opens the same files.
    const b = await HnswIndex.open({ file, dimensions: DIMS, source, threads: 2 });
    open.push(b);
    expect(b.openOutcome).toBe('caught-up');
    const live = [...source.rows.keys()].sort((x, y) => x - y);
    expect(b.size).toBe(live.length);
    expect(b.search(vs[0]!, 100).keys.sort((x, y) => x - y)).toEqual(live);
    for (const [key, v] of source.rows) expect(b.search(v, 1, { expansion: 1000 }).keys).toEqual([key]);
    expect(b.search(vs[4]!, 1).keys).not.toEqual([4]);
  });
});
