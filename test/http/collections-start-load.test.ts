import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createSession, cs, startTinyClipHarness, type Harness } from '../helpers/harness.ts';

/**
 * The server opens its port before the collections' indexes are read (h353): what needs no index answers at once, a
 * search waits for its collection's index (never answered from a part of it), and a write meanwhile is in the index
 * once. The load is held by the app's seam (`indexLoad.beforeLoad`), not timed. SQLite only: PostgreSQL reads nothing.
 */
describe('a restarted server takes requests while its collection indexes load (sqlite)', () => {
  let h: Harness;
  let id: string;
  let session: string;
  let before: string[];
  const colors = ['#c84', '#48c', '#8c4', '#c48', '#4c8', '#84c', '#222', '#eee'];
  const png = (color: string) => sharp({ create: { width: 16, height: 16, channels: 3, background: color } }).png().toBuffer().then((b) => b.toString('base64'));
  const headers = () => ({ 'collection-id': id, authorization: `Token ${h.account.token}`, 'content-type': 'application/json' });
  const call = (app: FastifyInstance, url: string, body: unknown) => app.inject({ method: 'POST', url: `/similarity/custom/v2/${url}`, headers: headers(), payload: JSON.stringify(body) });
  const knnIds = async (app: FastifyInstance) => {
    const res = await call(app, 'visualKNN', { query_record: { _id: 'r0' }, k: 20 });
    expect(res.statusCode).toBe(200);
    return (res.json() as { answer_records: { _id: string }[] }).answer_records.map((r) => r._id);
  };

  beforeAll(async () => {
    h = await startTinyClipHarness('sqlite');
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'shop' })).id;
    const records = await Promise.all(colors.slice(0, 6).map(async (c, i) => ({ _id: `r${i}`, _base64: await png(c) })));
    expect((await call(h.app, 'insert', { records })).json().status.code).toBe(210);
    session = await createSession(h, { name: 'Sunday break' });
    before = await knnIds(h.app);
    expect(before).toHaveLength(6);
    // the restart: a new app over the same folder, nothing of the index in memory
    await h.app.close();
  }, 120_000);
  afterAll(() => h?.close());

  /** An app over the folder whose index loads only once `release()` is called; `loading` resolves as the load is asked. */
  async function heldApp(waitMs: number) {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked!: () => void;
    const loading = new Promise<void>((r) => (asked = r));
    const app = await buildApp(h.config, {
      indexLoad: {
        waitMs,
        beforeLoad: async () => {
          asked();
          await held;
        },
      },
    });
    return { app, release, loading };
  }

  it('answers health, a session and ping at once, holds a search until the index is loaded, and then finds an insert made meanwhile once', async () => {
    const { app, release, loading } = await heldApp(60_000);
    try {
      // what server.ts does once its port is open
      const loaded = app.loupe.collections.loadIndexes();
      await loading;
      const auth = { authorization: `Token ${h.account.token}` };
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
      const read = await app.inject({ method: 'GET', url: cs(`session/${session}/`), headers: auth });
      expect([read.statusCode, read.json().name]).toEqual([200, 'Sunday break']);
      const ping = await call(app, 'ping', {});
      expect(ping.statusCode).toBe(200);
      expect(ping.json().info).toMatch(/index loading after a restart: 0 of 6 records read/);

      let answered = false;
      const search = knnIds(app).then((ids) => {
        answered = true;
        return ids;
      });
      // an insert while the load is held: stored and acknowledged at once (its index entry waits behind the load)
      const inserted = await call(app, 'insert', { records: [{ _id: 'late', _base64: await png(colors[6]!) }] });
      expect(inserted.json().status.code).toBe(210);
      // and a delete, whose record the held load has not read yet either
      expect((await call(app, 'delete', { records: [{ _id: 'r5' }] })).json().status.code).toBe(220);
      // turns of the event loop go by (the insert's vision task and its write took many), and the search still waits
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(answered).toBe(false);

      release();
      const ids = await search;
      expect(await loaded).toEqual({ collections: 1, failed: 0, removed: 0 });
      // the search asked before the insert and delete answers after them (they were acknowledged first)
      const expected = [...before.filter((x) => x !== 'r5'), 'late'].sort();
      expect([...ids].sort()).toEqual(expected);
      // each record once: a held search never saw a part of the index, nor an entry twice
      expect(new Set(ids).size).toBe(ids.length);
      const count = await call(app, 'getRecordCount', {});
      expect(count.json().count).toBe(6);
      expect((await call(app, 'ping', {})).json().info).toMatch(/; index loaded/);
      // the insert's vector is in the index: it finds itself first
      const self = await call(app, 'visualKNN', { query_record: { _id: 'late' }, k: 20 });
      const selfIds = (self.json() as { answer_records: { _id: string }[] }).answer_records.map((r) => r._id);
      expect(selfIds[0]).toBe('late');
      expect([...selfIds].sort()).toEqual(expected);
    } finally {
      release();
      await app.close();
    }
  }, 120_000);

  it('answers 503 index_loading with Retry-After when the wait passes its bound, and the search once loaded', async () => {
    const { app, release, loading } = await heldApp(200);
    try {
      const loaded = app.loupe.collections.loadIndexes();
      await loading;
      const res = await call(app, 'visualKNN', { query_record: { _id: 'r0' }, k: 3 });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'index_loading', detail: expect.stringMatching(/still loading after a restart/) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // the search-style client's status block too
      expect(res.json().status.code).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      release();
      await loaded;
      expect((await call(app, 'visualKNN', { query_record: { _id: 'r0' }, k: 3 })).statusCode).toBe(200);
    } finally {
      release();
      await app.close();
    }
  }, 120_000);

  it('loads the asked collection on its own when the start has not come to it', async () => {
    const { app, release, loading } = await heldApp(60_000);
    try {
      // no loadIndexes: the search itself starts the load, held, and waits for it
      const search = knnIds(app);
      await loading;
      release();
      expect((await search).length).toBeGreaterThan(0);
    } finally {
      release();
      await app.close();
    }
  }, 120_000);

  it('says a rebuild of a damaged index apart from the read: ping and the progress count vectors inserted, and Retry-After comes from the rebuild rate', async () => {
    // the saved index cut in half: the load reads every record, then rebuilds the graph (h362: ping said every record
    // read and Retry-After 1 s through a rebuild of tens of seconds)
    const file = path.join(h.config.dataDir, 'indexes', `${id}.usearch`);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    // the rebuild inserts 2 vectors a batch and is held after the first and second batches
    const gates = new Map<number, { reached: Promise<void>; arrive: () => void; go: Promise<void>; release: () => void }>();
    for (const n of [2, 4]) {
      let arrive!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((r) => (arrive = r));
      const go = new Promise<void>((r) => (release = r));
      gates.set(n, { reached, arrive, go, release });
    }
    const releaseAll = () => gates.forEach((g) => g.release());
    const app = await buildApp(h.config, {
      indexLoad: {
        waitMs: 200,
        rebuildBatch: 2,
        duringRebuild: async (_c, r) => {
          const g = gates.get(r.inserted);
          if (!g) return;
          g.arrive();
          await g.go;
        },
      },
    });
    try {
      const loaded = app.loupe.collections.loadIndexes();
      await gates.get(2)!.reached;
      const info = async () => ((await call(app, 'ping', {})).json() as { info: string }).info;
      expect(await info()).toMatch(/index rebuilding after a restart \(its saved file not used: index file size\): 2 of 6 vectors inserted, every record read/);
      expect(app.loupe.collections.indexProgress()).toMatchObject({ state: 'loading', recordsRead: 6, rebuilding: { collection: id, inserted: 2, of: 6, reason: 'index file size' } });
      // a third of the graph in 1.5 s or more: the rest takes about 3 s more, not the read's 1 s
      await new Promise((r) => setTimeout(r, 1500));
      const res = await call(app, 'visualKNN', { query_record: { _id: 'r0' }, k: 3 });
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toMatch(/being rebuilt: 2 of 6 vectors inserted/);
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(3);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // the count moves with the rebuild
      gates.get(2)!.release();
      await gates.get(4)!.reached;
      expect(await info()).toMatch(/4 of 6 vectors inserted/);
      gates.get(4)!.release();
      expect(await loaded).toEqual({ collections: 1, failed: 0, removed: 0 });
      expect(app.loupe.collections.indexProgress()?.rebuilding).toBeUndefined();
      expect(await info()).toMatch(/; index loaded/);
      expect((await call(app, 'visualKNN', { query_record: { _id: 'r0' }, k: 3 })).statusCode).toBe(200);
    } finally {
      releaseAll();
      await app.close();
    }
  }, 120_000);
});
