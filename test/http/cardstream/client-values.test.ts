import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Database } from '../../../src/store/database.ts';
import { backends, createSession, cs, startHarness, type Harness } from '../../helpers/harness.ts';

/**
 * Values the published card-scanning client sends as it sends them (issue 16): free-text games,
 * random-hex event ids, microsecond times, price statistics without a price, grades.
 */

/** A `price_stats` entry in the recognition service's shape (spec 3 §2). */
const stats = (stats_type: string, interval: string, value: Record<string, unknown>) => ({
  stats_type,
  interval,
  start_date: '2026-08-25',
  value: { q1: 1, q3: 2, max: 99, min: 0.5, std: 3, range: 98.5, oldest: 4, latest_date: '2026-11-22', oldest_date: '2026-08-25', trend: { r_squared: 0.1, volatility: 0.2, forecast_30d: 5, trimmed_mean: 6, slope_per_day: 0, slope_per_day_pct: 0 }, ...value },
});

const clientStats = [
  stats('overall', '90d', { median: 14, mean: 15.2, latest: 13 }),
  stats('graded', '30d', { median: 80, mean: 85, latest: 79 }),
  stats('ungraded', '90d', { median: 11, mean: 11.4, latest: 12 }),
  stats('ungraded', '30d', { median: 12.5, mean: 13.1, latest: 12 }),
];

describe.each(backends)('values the published client sends (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  const upload = (sid: string, identifications: unknown[]) => h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications } });
  const list = async (sid: string, query = '') => (await h.request('GET', cs(`identification/?session=${sid}&page_size=500${query}`))).json();
  const summary = async (sid: string) => (await h.request('GET', cs(`session/${sid}/summary/`))).json();
  const session = async (sid: string) => (await h.request('GET', cs(`session/${sid}/`))).json();
  /** Writes what earlier versions of the server could store, through a connection of its own. */
  const withDb = async (fn: (db: Kysely<Database>) => Promise<unknown>) => {
    const store = await openStore({ dataDir: h.dataDir, databaseUrl: h.config.databaseUrl });
    try {
      await fn(store.db);
    } finally {
      await store.close();
    }
  };

  describe('item 1: game is free text', () => {
    it('starts sessions with the display names the client sends, kept as sent', async () => {
      for (const game of ['Pokémon', 'Magic The Gathering', 'Baseball', 'g'.repeat(100), ' Yu-Gi-Oh! ']) {
        const res = await h.request('POST', cs('session/'), { body: { name: 'stream', game } });
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().game).toBe(game);
        expect((await session(res.json().id)).game).toBe(game);
      }
    });

    it('keeps the documented values in their spelling and refuses more than 100 characters', async () => {
      for (const [sent, stored] of [['tcg', 'TCG'], ['SPORTS', 'Sports'], [' Comics ', 'Comics'], ['slabs', 'Slabs'], ['', ''], [null, '']]) {
        const res = await h.request('POST', cs('session/'), { body: { game: sent } });
        expect(res.statusCode).toBe(201);
        expect(res.json().game).toBe(stored);
      }
      const long = await h.request('POST', cs('session/'), { body: { game: 'g'.repeat(101) } });
      expect(long.statusCode).toBe(400);
      expect(long.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'game' }] });
      expect(long.json().detail).toContain('game');
      expect((await h.request('POST', cs('session/'), { body: { game: 3 } })).statusCode).toBe(400);
    });

    it('the game filter matches what was stored, in any case, and nothing else', async () => {
      const ws = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'games')).workspace;
      const make = async (game: string) => (await h.request('POST', cs(`session/?workspace=${ws}`), { body: { game } })).json().id as string;
      const pokemon = await make('Pokémon');
      const pokemonToo = await make('POKÉMON');
      const magic = await make('Magic The Gathering');
      const tcg = await make('tcg');
      // full-width, as a Japanese input method types it: the same game (found only as typed before)
      const wide = await make('Ｐｏｋéｍｏｎ');
      await make('');
      const ids = async (query: string) => {
        const res = await h.request('GET', cs(`session/?workspace=${ws}&${query}`));
        expect(res.statusCode, res.body).toBe(200);
        return new Set(res.json().results.map((s: { id: string }) => s.id));
      };
      expect(await ids(`game=${encodeURIComponent('pokémon')}`)).toEqual(new Set([pokemon, pokemonToo, wide]));
      expect(await ids(`game=${encodeURIComponent('ＰＯＫÉＭＯＮ')}`)).toEqual(new Set([pokemon, pokemonToo, wide]));
      expect(await ids(`game=${encodeURIComponent('Magic The Gathering')}`)).toEqual(new Set([magic]));
      expect(await ids('game=Magic')).toEqual(new Set());
      expect(await ids('game=TCG')).toEqual(new Set([tcg]));
      expect(await ids('game=Tcg')).toEqual(new Set([tcg]));
      // Empty is "no filter", as for `search`.
      expect((await ids('game=')).size).toBe(6);
      const counted = await h.request('GET', cs(`session/?workspace=${ws}&game=${encodeURIComponent('Pokémon')}&search=pok`));
      expect(counted.json().count).toBe(3);
    });
  });

  describe('item 2: rows keep the order they were sent', () => {
    it('lists random-hex event ids in upload order, batch after batch; re-sends keep their place', async () => {
      const sid = await createSession(h);
      const hex = () => randomBytes(8).toString('hex');
      const first = Array.from({ length: 300 }, () => hex());
      const second = Array.from({ length: 40 }, () => hex());
      expect((await upload(sid, first.map((event_id, i) => ({ event_id, name: `Card ${i}` })))).json().created).toBe(300);
      expect((await upload(sid, [...second.map((event_id) => ({ event_id })), { event_id: first[7], calls: 9 }])).json()).toMatchObject({ created: 40, updated: 1 });
      const rows = (await list(sid)).results.map((r: { event_id: string }) => r.event_id);
      expect(rows).toEqual([...first, ...second]);
      // Pages follow the same order.
      const page2 = (await h.request('GET', cs(`identification/?session=${sid}&page=2&page_size=100`))).json();
      expect(page2.results.map((r: { event_id: string }) => r.event_id)).toEqual(first.slice(100, 200));
    });

    it('repeats inside a batch: the row takes the place of its first occurrence', async () => {
      const sid = await createSession(h);
      await upload(sid, [{ event_id: 'f0' }, { event_id: 'a1' }, { event_id: 'f0', calls: 2 }, { event_id: '00' }]);
      expect((await list(sid)).results.map((r: { event_id: string }) => r.event_id)).toEqual(['f0', 'a1', '00']);
    });
  });

  describe('item 3: times keep the client\'s precision', () => {
    it('returns seen in UTC with microseconds', async () => {
      const sid = await createSession(h);
      const cases: Array<[string, string]> = [
        ['2026-11-23T23:53:00.969530+00:00', '2026-11-23T23:53:00.969530Z'],
        ['2026-11-24T01:53:00.5+02:00', '2026-11-23T23:53:00.500000Z'],
        ['2026-11-23T23:53:00.000001Z', '2026-11-23T23:53:00.000001Z'],
        ['2026-11-23T18:53:00.9695301-05:00', '2026-11-23T23:53:00.969530Z'],
        ['2026-11-20T10:00:00', '2026-11-20T10:00:00.000000Z'],
        ['2026-11-20', '2026-11-20T00:00:00.000000Z'],
        ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000000Z'],
        ['2026-12-31T23:59:59.999999-01:00', '2027-01-01T00:59:59.999999Z'],
        ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z'],
        ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
      ];
      const res = await upload(sid, cases.map(([seen], i) => ({ event_id: `t${i}`, seen })));
      expect(res.statusCode, res.body).toBe(200);
      const rows = (await list(sid)).results;
      expect(rows.map((r: { seen: string }) => r.seen)).toEqual(cases.map(([, iso]) => iso));
      // The same on every way a row is read.
      expect((await list(sid, '&event_id=t0')).results[0].seen).toBe('2026-11-23T23:53:00.969530Z');
      const patched = await h.request('PATCH', cs(`identification/${rows[0].id}/`), { body: { note: 'n' } });
      expect(patched.json().seen).toBe('2026-11-23T23:53:00.969530Z');
    });

    it.each([
      ['an impossible day', '2026-02-30'],
      ['an impossible day with a time', '2026-02-30T10:00:00Z'],
      ['29 February of a common year', '2026-02-29T10:00:00Z'],
      ['day 31 of a 30-day month', '2026-04-31T10:00:00Z'],
      ['month 13', '2026-13-01T10:00:00Z'],
      ['hour 25', '2026-11-20T25:00:00Z'],
      ['second 60', '2026-11-20T10:00:60Z'],
      ['an offset over 23:59', '2026-11-20T10:00:00+24:00'],
      ['a time before year 1 in UTC', '0001-01-01T00:30:00+01:00'],
      ['a time after year 9999 in UTC', '9999-12-31T23:30:00-01:00'],
    ])('%s is a 400 naming the row, and nothing is stored', async (_label, seen) => {
      const sid = await createSession(h);
      const res = await upload(sid, [{ event_id: 'ok', seen: '2026-11-20T10:00:00Z' }, { event_id: 'bad', seen }]);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ row: 1, field: 'identifications[1].seen' }] });
      expect(res.json().detail).toContain('Row 1');
      expect((await list(sid)).count).toBe(0);
    });

    it('reads rows stored by earlier versions (milliseconds) in the same form', async () => {
      const sid = await createSession(h);
      await upload(sid, [{ event_id: 'old' }]);
      // What versions before microseconds wrote: JavaScript's toISOString.
      await withDb((db) => db.updateTable('card_identifications').set({ seen: '2026-11-20T10:00:00.123Z' }).where('session_id', '=', sid).execute());
      expect((await list(sid)).results[0].seen).toBe('2026-11-20T10:00:00.123000Z');
    });
  });

  describe('item 4: a representative price from price_stats', () => {
    it('derives the price, marks it, and counts it in total_price', async () => {
      const sid = await createSession(h);
      const res = await upload(sid, [
        { event_id: 'raw', id_type: 'tcg', name: 'Charizard', price_stats: clientStats },
        { event_id: 'slab', id_type: 'slab', name: 'Charizard PSA 9', price_stats: clientStats },
        { event_id: 'sent', name: 'Mew', price: 3, price_stats: clientStats },
        { event_id: 'none', name: 'Eevee' },
      ]);
      expect(res.statusCode, res.body).toBe(200);
      const rows = (await list(sid)).results;
      // Raw cards: ungraded first, shortest interval, median.
      expect(rows[0]).toMatchObject({ price: 12.5, price_derived: true, price_basis: { stats_type: 'ungraded', interval: '30d', statistic: 'median' } });
      // A slab: graded first.
      expect(rows[1]).toMatchObject({ price: 80, price_derived: true, price_basis: { stats_type: 'graded', interval: '30d', statistic: 'median' } });
      // A price the client sends wins.
      expect(rows[2]).toMatchObject({ price: 3, price_derived: false, price_basis: null });
      expect(rows[3]).toMatchObject({ price: null, price_derived: false, price_basis: null });
      // price_stats are kept as sent.
      expect(rows[0].price_stats).toEqual(clientStats);
      expect((await summary(sid)).total_price).toBe(95.5);
      expect((await session(sid)).total_price).toBe(95.5);
    });

    it('falls back from median to mean to latest, skips unusable entries, and derives nothing from nothing usable', async () => {
      const sid = await createSession(h);
      await upload(sid, [
        { event_id: 'mean', price_stats: [stats('ungraded', '7d', { median: null, mean: 4.25 })] },
        { event_id: 'latest', price_stats: [stats('ungraded', '7d', { median: 0, latest: 2 })] },
        { event_id: 'overall', price_stats: [stats('graded', '7d', { median: 50 }), stats('overall', 'all', { median: 9 }), stats('ungraded', '30d', { median: 'n/a', mean: -1 })] },
        { event_id: 'intervals', price_stats: [stats('ungraded', '1y', { median: 1 }), stats('ungraded', '3 months', { median: 2 }), stats('ungraded', '14d', { median: 3 }), stats('ungraded', 'all', { median: 4 })] },
        { event_id: 'garbage', price_stats: [{ source: 'tcgplayer', market: 1.25 }, 'x', null, stats('ungraded', '7d', { median: 1e12 }), stats('ungraded', '7d', { median: 7, currency: 'EUR' }), { ...stats('ungraded', '7d', { median: 7 }), currency: 'EUR' }] },
      ]);
      const rows = (await list(sid)).results;
      expect(rows.map((r: { price: number | null }) => r.price)).toEqual([4.25, 2, 9, 3, null]);
      expect(rows.map((r: { price_derived: boolean }) => r.price_derived)).toEqual([true, true, true, true, false]);
      expect(rows[0].price_basis).toEqual({ stats_type: 'ungraded', interval: '7d', statistic: 'mean' });
      expect(rows[2].price_basis).toEqual({ stats_type: 'overall', interval: 'all', statistic: 'median' });
      expect((await summary(sid)).total_price).toBe(18.25);
    });

    it('a correction always wins, and a price sent later replaces a derived one', async () => {
      const sid = await createSession(h);
      await upload(sid, [
        { event_id: 'a', name: 'A', price_stats: clientStats },
        { event_id: 'b', name: 'B', price_stats: clientStats },
        { event_id: 'c', name: 'C', price_stats: clientStats },
      ]);
      expect((await session(sid)).total_price).toBe(37.5);
      const [a, b] = (await list(sid)).results;

      const fixed = (await h.request('PATCH', cs(`identification/${a.id}/`), { body: { price: 20 } })).json();
      expect(fixed).toMatchObject({ price: 20, price_derived: false, price_basis: null, corrected: true });
      expect(fixed.original.price).toBe(12.5);
      // Confirming the derived value makes it the user's price.
      const confirmed = (await h.request('PATCH', cs(`identification/${b.id}/`), { body: { price: 12.5 } })).json();
      expect(confirmed).toMatchObject({ price: 12.5, price_derived: false, corrected: true });

      // The client sends its own price on a re-send: it replaces the derived one only.
      const again = await upload(sid, [{ event_id: 'a', price: 1 }, { event_id: 'b', price: 1 }, { event_id: 'c', price: 2 }]);
      expect(again.json()).toEqual({ received: 3, created: 0, updated: 1, duplicates: 2 });
      const rows = (await list(sid)).results;
      expect(rows.map((r: { price: number }) => r.price)).toEqual([20, 12.5, 2]);
      expect(rows[2]).toMatchObject({ price_derived: false, price_basis: null, corrected: false });
      expect((await summary(sid)).total_price).toBe(34.5);
      expect((await session(sid)).total_price).toBe(34.5);
      // A re-send never changes a price the client sent.
      expect((await upload(sid, [{ event_id: 'c', price: 5 }])).json().duplicates).toBe(1);
      expect((await list(sid, '&event_id=c')).results[0].price).toBe(2);
    });
  });

  describe('item 10: grades the summary can digest', () => {
    it.each([
      ['1e308', 1e308],
      ['above 10', 10.5],
      ['negative', -1],
      ['hexadecimal text', '0x1A'],
      ['exponent text', '1e1'],
      ['text that is no number', 'n/a'],
      ['empty text', ''],
      ['Infinity as text', 'Infinity'],
      ['a boolean', true],
      ['an object', { value: 9 }],
      ['decimal text above 10', '26'],
    ])('grading.grades.final %s is a 400 naming the row and field', async (_label, final) => {
      const sid = await createSession(h);
      const res = await upload(sid, [{ event_id: 'ok', grading: { grades: { final: 9 } } }, { event_id: 'bad', grading: { grades: { final } } }]);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ row: 1, field: 'identifications[1].grading.grades.final' }] });
      expect(res.json().detail).toContain('grading.grades.final');
      expect((await list(sid)).count).toBe(0);
    });

    it('accepts grades from 0 to 10 as numbers or decimal text; no final grade is no grade', async () => {
      const sid = await createSession(h);
      const finals = [0, 10, 9.5, '8', ' 7.25 ', '10.0', '.5', null];
      const res = await upload(sid, [...finals.map((final, i) => ({ event_id: `g${i}`, grading: { grades: { final, condition: 'NM' } } })), { event_id: 'none', grading: { records: [] } }]);
      expect(res.statusCode, res.body).toBe(200);
      const rows = (await list(sid)).results;
      expect(rows.map((r: { grade: number | null }) => r.grade)).toEqual([0, 10, 9.5, 8, 7.25, 10, 0.5, null, null]);
      expect(rows[4].grading.grades.final).toBe(' 7.25 ');
      expect((await summary(sid)).average_grade).toBe(6.46);
      // A re-send's grading is checked the same way.
      const resend = await upload(sid, [{ event_id: 'g0', grading: { grades: { final: '0x1A' } } }]);
      expect(resend.statusCode).toBe(400);
      expect((await list(sid, '&event_id=g0')).results[0].grade).toBe(0);
    });

    it('a summary never fails because of a row stored by an earlier version', async () => {
      const sid = await createSession(h);
      await upload(sid, [{ event_id: 'good', price: 2, grading: { grades: { final: 8 } } }, { event_id: 'huge', price: 1 }, { event_id: 'hex', price: 1 }]);
      await withDb(async (db) => {
        await db.updateTable('card_identifications').set({ grade: 1e308, grading: JSON.stringify({ grades: { final: 1e308 } }) }).where('session_id', '=', sid).where('event_id', '=', 'huge').execute();
        await db.updateTable('card_identifications').set({ grade: 26, grading: JSON.stringify({ grades: { final: '0x1A' } }) }).where('session_id', '=', sid).where('event_id', '=', 'hex').execute();
      });
      for (let i = 0; i < 2; i++) {
        const res = await h.request('GET', cs(`session/${sid}/summary/`));
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({ identifications: 3, distinct_cards: 0, total_price: 4, paid_calls: 0, average_grade: 8 });
      }
      // The rows still list, with their grading as stored and no grade.
      const rows = (await list(sid)).results;
      expect(rows.map((r: { grade: number | null }) => r.grade)).toEqual([8, null, null]);
      expect(rows[2].grading).toEqual({ grades: { final: '0x1A' } });
    });
  });

});
