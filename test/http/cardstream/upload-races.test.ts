import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createSession, cs, startHarness, type Harness } from '../../helpers/harness.ts';
import { sql } from 'kysely';
import { seededRandom } from '../../../src/util/seeded-random.ts';
import type { Services } from '../../../src/services/container.ts';

/** Many batches to one session at once (a concurrency tester's findings on PostgreSQL). */
describe.each(backends)('uploads to one session at once (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(() => h?.close());

  it('batches whose new event ids overlap all land: no 500, every row once, the count equal to the rows', async () => {
    const sid = await createSession(h);
    const rand = seededRandom(32);
    const batch = () => Array.from({ length: 50 }, () => {
      const e = Math.floor(rand() * 300);
      return { event_id: `e${e}`, name: `c${e}`, price: 1 };
    });
    const answers = await Promise.all(Array.from({ length: 24 }, () => h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: batch() } })));
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => `${a.statusCode} ${a.body.slice(0, 100)}`)).toEqual([]);
    const created = answers.reduce((n, a) => n + a.json().created, 0);
    const session = (await h.request('GET', cs(`session/${sid}/`))).json();
    expect(session.identification_count).toBe(created);
    const listed = (await h.request('GET', cs(`identification/?session=${sid}&page_size=500`))).json();
    expect(listed.count ?? listed.results.length).toBe(created);
    expect(new Set(listed.results.map((r: { event_id: string }) => r.event_id)).size).toBe(listed.results.length);
  }, 60_000);

  it('rows appear in upload order only at the end of the list: a reader following new rows page by page sees each once', async () => {
    const sid = await createSession(h);
    let n = 0;
    const writer = async () => {
      for (let b = 0; b < 25; b++) {
        const rows = Array.from({ length: 1 + (b % 4) }, () => ({ event_id: `w${n++}`, name: 'c' }));
        const res = await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: rows } });
        expect(res.statusCode, res.body).toBe(200);
      }
    };
    const seen: string[] = [];
    let writing = true;
    const reader = async () => {
      // what an app tailing the list does: ask for the page holding the next row not yet seen, keep what lies past it
      while (writing || seen.length < n) {
        const page = Math.floor(seen.length / 50) + 1;
        const res = (await h.request('GET', cs(`identification/?session=${sid}&page_size=50&page=${page}`))).json() as { results: { event_id: string }[] };
        seen.push(...res.results.slice(seen.length - (page - 1) * 50).map((r) => r.event_id));
        if (!writing && res.results.length < 50 && seen.length >= n) break;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const read = reader();
    await Promise.all(Array.from({ length: 6 }, writer));
    writing = false;
    await read;
    const listed = (await h.request('GET', cs(`identification/?session=${sid}&page_size=500`))).json() as { results: { event_id: string }[] };
    expect(listed.results).toHaveLength(n);
    expect(seen).toEqual(listed.results.map((r) => r.event_id));
  }, 120_000);

  it.runIf(backend === 'postgres')('batches merging into the same rows and sharing new ids at once never deadlock (a retry and a first attempt took their locks in two orders)', async () => {
    const deadlocks = async () => {
      const db = (h.app.loupe as unknown as Services).store.db;
      await sql`SELECT pg_stat_force_next_flush()`.execute(db);
      return Number((await sql<{ n: string }>`SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()`.execute(db)).rows[0]!.n);
    };
    const before = await deadlocks();
    for (let round = 0; round < 6; round++) {
      const sid = await createSession(h);
      await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: Array.from({ length: 10 }, (_, i) => ({ event_id: `e${i}`, name: 'x' })) } });
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, k) =>
          h.request('POST', cs(`session/${sid}/identifications/`), {
            body: { identifications: [{ event_id: `e${(k * 3) % 10}`, name: 'x', note: `n${k}` }, { event_id: `e${(k * 7 + 1) % 10}`, name: 'x', note: `m${k}` }, { event_id: `shared${k % 3}`, name: 'x' }, { event_id: `own${k}`, name: 'x' }] },
          }),
        ),
      );
      expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body.slice(0, 100))).toEqual([]);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect((await deadlocks()) - before).toBe(0);
  }, 120_000);

  it('uploads racing the delete of their session are each a 404 or land before it, never a 500; the delete is a 204', async () => {
    for (let round = 0; round < 30; round++) {
      const sid = await createSession(h);
      // rows the uploads merge into (row locks) and new ids they share (retries), as a reviewer's race had them
      await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: Array.from({ length: 30 }, (_, k) => ({ event_id: `e${k}`, name: 'c' })) } });
      const uploads = Array.from({ length: 8 }, (_, i) => h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: Array.from({ length: 40 }, (_, k) => ({ event_id: `e${(k * 7 + i * 3) % 60}`, name: 'c', price: 1 })) } }));
      const del = new Promise((r) => setTimeout(r, round % 5)).then(() => h.request('DELETE', cs(`session/${sid}/`)));
      const codes = (await Promise.all([...uploads, del])).map((a) => a.statusCode);
      expect(codes.slice(0, 8).filter((c) => c !== 200 && c !== 404)).toEqual([]);
      expect(codes[8]).toBe(204);
    }
  }, 120_000);
});
