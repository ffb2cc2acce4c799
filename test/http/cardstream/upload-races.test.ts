import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createSession, cs, startHarness, type Harness } from '../../helpers/harness.ts';
import { seededRandom } from '../../../src/util/seeded-random.ts';

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

  it('an upload racing the delete of its session is a 404 or lands before it, never a 500', async () => {
    for (let round = 0; round < 5; round++) {
      const sid = await createSession(h);
      const uploads = Array.from({ length: 6 }, (_, i) => h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: Array.from({ length: 20 }, (_, k) => ({ event_id: `r${i}-${k}`, name: 'c' })) } }));
      const del = h.request('DELETE', cs(`session/${sid}/`));
      const codes = (await Promise.all([...uploads, del])).map((a) => a.statusCode);
      expect(codes.slice(0, 6).filter((c) => c !== 200 && c !== 404)).toEqual([]);
      expect(codes[6]).toBe(204);
    }
  }, 60_000);
});
