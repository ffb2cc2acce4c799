import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectionStore } from '../../src/store/collection-store.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/** Bit `i` of each band flipped, for the bands listed (band b holds bits 15b … 15b + 14; the last, 240 … 255). */
function flipped(hash: string, spots: number[]): string {
  const bits = [...hash];
  for (const at of spots) bits[at] = bits[at] === '1' ? '0' : '1';
  return bits.join('');
}

/**
 * Near duplicates by visual hash: on PostgreSQL the rows sharing one of 17 bands with the query are
 * the candidates (migration 019), which by the pigeonhole principle holds every row within 16 bits.
 * Rows exactly at the edge (one bit off in each of 16 bands, or in all 17) tell a band search that
 * lost some from one that does not.
 */
describe.each(backends)('near duplicates by hash bands (%s)', (backend) => {
  let h: Harness;
  let store: Store;
  const base = '/similarity/custom/v2';

  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 8, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    store = await openStore({ dataDir: h.dataDir, databaseUrl: h.config.databaseUrl });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await h?.close();
  });

  it('finds every record within 16 bits however the bits spread over the bands, and none further at the default radius', async () => {
    const { account, token } = await h.newAccount();
    const { id } = await h.app.loupe.collections.create({ accountId: account, type: 'custom', name: 'bands' });
    let state = 11;
    const rand = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const query = Array.from({ length: 256 }, () => (rand() < 0.5 ? '1' : '0')).join('');
    const oneInEach = (bands: number[], at = 7) => bands.map((b) => b * 15 + at);
    const hashes: Record<string, string> = {
      q: query,
      // 16 bits, one in each of bands 0–15: only the last band is whole
      'sixteen-spread': flipped(query, oneInEach([...Array(16).keys()])),
      // 16 bits, one in each band but the first
      'sixteen-spread-b': flipped(query, oneInEach([...Array(16).keys()].map((b) => b + 1))),
      // 16 bits in two bands
      'sixteen-packed': flipped(query, [...Array(15).keys(), 240]),
      // 17 bits, one in every band: no band whole, beyond 16 bits
      'seventeen-spread': flipped(query, oneInEach([...Array(17).keys()])),
      far: flipped(query, [...Array(128).keys()].map((i) => i * 2)),
    };
    // vectors far apart, so only the hash makes a near duplicate
    const rows = Object.entries(hashes).map(([recordId, hash], i) => ({
      recordId,
      data: {},
      hash,
      vector: Float32Array.from({ length: 8 }, (_, k) => (k === i ? 1 : 0)),
    }));
    await new CollectionStore(store).insert(id, rows, 'test-model');
    const near = async (radius?: number) => {
      const res = await h.request('POST', `${base}/nearDuplicates`, { body: { query_record: { _id: 'q' }, ...(radius === undefined ? {} : { radius }) }, headers: { 'collection-id': id }, token });
      expect(res.statusCode).toBe(200);
      return (res.json().answer_records as { _id: string }[]).map((r) => r._id).sort();
    };
    expect(await near()).toEqual(['q', 'sixteen-packed', 'sixteen-spread', 'sixteen-spread-b']);
    // radius 6 allows 19 bits: beyond what the bands guarantee, so every row is counted
    expect(await near(6)).toEqual(['q', 'seventeen-spread', 'sixteen-packed', 'sixteen-spread', 'sixteen-spread-b']);
  });

  it('takes no near duplicate by a hash within reach of a blank image\'s: flat pictures of any colour were each other\'s (h273)', async () => {
    const { account, token } = await h.newAccount();
    const { id } = await h.app.loupe.collections.create({ accountId: account, type: 'custom', name: 'blank' });
    const ones = (n: number) => '1'.repeat(n) + '0'.repeat(256 - n);
    const hashes: Record<string, string> = {
      // a flat red and a flat blue picture: both all 0
      red: ones(0),
      blue: ones(0),
      // a flat picture with a small mark: 10 bits from blank
      marked: ones(10),
      // 20 bits set: a pattern at the default radius (16 bits), 10 bits from "marked"
      patterned: ones(20),
      'patterned-copy': ones(24),
    };
    const rows = Object.entries(hashes).map(([recordId, hash], i) => ({ recordId, data: {}, hash, vector: Float32Array.from({ length: 8 }, (_, k) => (k === i ? 1 : 0)) }));
    await new CollectionStore(store).insert(id, rows, 'test-model');
    const near = async (q: string, radius?: number) => {
      const res = await h.request('POST', `${base}/nearDuplicates`, { body: { query_record: { _id: q }, ...(radius === undefined ? {} : { radius }) }, headers: { 'collection-id': id }, token });
      expect(res.statusCode).toBe(200);
      return (res.json().answer_records as { _id: string }[]).map((r) => r._id).sort();
    };
    expect(await near('red')).toEqual(['red']);
    expect(await near('red', 0)).toEqual(['red']);
    expect(await near('marked')).toEqual(['marked']);
    // the stored near-blank hash is not taken either, though 10 bits from the query
    expect(await near('patterned')).toEqual(['patterned', 'patterned-copy']);
  });

  it.runIf(backend === 'postgres')('has an index the band condition can use', async () => {
    const q = '01'.repeat(128);
    await sql`SET enable_seqscan = off`.execute(store.db);
    try {
      const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT key FROM collection_records WHERE hash IS NOT NULL AND loupe_hash_bands(hash) && loupe_hash_bands(${q}::bit(256))`.execute(store.db);
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('collection_records_hash_bands');
    } finally {
      await sql`SET enable_seqscan = on`.execute(store.db);
    }
    // the bands of a hash: index × 65536 + the band's bits
    const bands = (await sql<{ b: number[] }>`SELECT loupe_hash_bands(${'1'.repeat(15) + '0'.repeat(241)}::bit(256)) AS b`.execute(store.db)).rows[0]!.b;
    expect(bands).toHaveLength(17);
    expect(bands[0]).toBe(32767);
    expect(bands[1]).toBe(65536);
    expect(bands[16]).toBe(16 * 65536);
  });
});
