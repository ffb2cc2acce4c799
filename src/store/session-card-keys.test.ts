import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../test/helpers/harness.ts';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { cardKey } from '../services/card-session-service.ts';
import { foldCardNumber, pgRefoldCardKey, refoldCardKey } from './session-card-keys.ts';
import { cardKeyNumbers } from './migrations/021-card-key-numbers.ts';
import { cardKeyWidths } from './migrations/024-card-key-widths.ts';

/** The key releases before migration 021 stored. */
const oldKey = (row: Parameters<typeof cardKey>[0]) => {
  const norm = (s: string | null | undefined) => (s ?? '').trim().replace(/\s+/g, ' ').toLowerCase();
  return [norm(row.id_type), norm(row.name) || norm(row.full_name), norm(row.set_code) || norm(row.set_name), norm(row.card_number)].join('|');
};

const pikachu = { id_type: 'tcg', name: 'Pikachu', set_code: 'MEW', card_number: '025' };
const flabebe = { id_type: 'tcg', name: 'Flabe\u0301be\u0301', set_name: 'Flashfire', card_number: '0' };
const rows = [
  pikachu,
  flabebe,
  { id_type: 'tcg', name: 'Pikachu', set_code: 'MEW', card_number: '025/165' },
  { id_type: 'tcg', name: 'Dark Magician', set_code: 'LOB', card_number: 'LOB-EN005' },
  { id_type: 'tcg', name: 'Lightning Bolt', set_code: '2ED', card_number: '100' },
  { id_type: 'sport', name: 'Mike Trout', set_name: 'Topps', card_number: 'US-007a' },
  { name: 'Charizard 004/102', card_number: null },
  { id_type: 'tcg', name: 'pipe|in|name', set_code: 'x', card_number: '007' },
  { id_type: 'tcg', name: 'ﾋﾟｶﾁｭｳ', set_code: 'ＳＶ２ａ', card_number: '０２５/１６５' },
];

describe('card keys', () => {
  it('fold every run of digits of a number, keeping a lone zero', () => {
    expect(foldCardNumber('025/165')).toBe('25/165');
    expect(foldCardNumber('lob-en005')).toBe('lob-en5');
    expect(foldCardNumber('0')).toBe('0');
    expect(foldCardNumber('00')).toBe('0');
    expect(foldCardNumber('100')).toBe('100');
    expect(foldCardNumber('a00b')).toBe('a0b');
  });

  it('as stored before are made again as cardKey makes them now', () => {
    for (const row of rows) expect(refoldCardKey(oldKey(row))).toBe(cardKey(row));
    expect(cardKey(pikachu)).toBe(cardKey({ ...pikachu, card_number: '25' }));
    expect(cardKey(flabebe)).toBe(cardKey({ ...flabebe, name: 'Flabébé' }));
    expect(cardKey({ id_type: 'tcg', name: 'ﾋﾟｶﾁｭｳ', set_code: 'ＳＶ２ａ', card_number: '０２５/１６５' })).toBe(cardKey({ id_type: 'tcg', name: 'ピカチュウ', set_code: 'SV2a', card_number: '25/165' }));
  });
});

describe.each(backends)('migrations 021 and 024 (%s)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
  });
  afterAll(() => t?.close());

  it("makes the database's own keys as the server makes them", async () => {
    const db = t.store.db;
    for (const row of rows) {
      const key = oldKey(row);
      const made = backend === 'sqlite' ? sql<{ k: string }>`SELECT loupe_refold_card_key(${key}) AS k` : sql<{ k: string }>`SELECT ${sql.raw(pgRefoldCardKey('v.key'))} AS k FROM (SELECT ${key}::text AS key) v`;
      expect((await made.execute(db)).rows[0]?.k).toBe(cardKey(row));
    }
  });

  it("re-keys a session's stored rows, so its summary counts one card once", async () => {
    const db = t.store.db;
    const now = new Date().toISOString();
    const [account, workspace, session] = [randomUUID(), randomUUID(), randomUUID()];
    await sql`INSERT INTO accounts (id, name, created_at) VALUES (${account}, 'a', ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, account_id, name, created_at) VALUES (${workspace}, ${account}, 'w', ${now})`.execute(db);
    await sql`INSERT INTO card_sessions (id, workspace_id, name, description, game, platform, status, started, client, meta_data, created_at, updated_at)
      VALUES (${session}, ${workspace}, 's', '', 'TCG', '', 'live', ${now}, '{}', '{}', ${now}, ${now})`.execute(db);
    const jp = { id_type: 'tcg', name: 'ピカチュウ', set_code: 'SV2a', card_number: '025/165' };
    const stored = [oldKey(pikachu), oldKey({ ...pikachu, card_number: '25' }), oldKey(flabebe), oldKey({ ...flabebe, name: 'Flabébé' }), oldKey(jp), oldKey({ ...jp, name: 'ﾋﾟｶﾁｭｳ', set_code: 'ＳＶ２ａ', card_number: '０２５/１６５' })];
    for (const [i, key] of stored.entries()) {
      await sql`INSERT INTO card_identifications (id, session_id, event_id, card_key, created_at, updated_at) VALUES (${randomUUID()}, ${session}, ${String(i)}, ${key}, ${now}, ${now})`.execute(db);
    }
    const summary = () => t.store.db.selectFrom('card_identifications').select((eb) => eb.fn.count<number>('card_key').distinct().as('n')).where('session_id', '=', session).executeTakeFirstOrThrow();
    expect(Number((await summary()).n)).toBe(6);
    for (const statement of [...cardKeyNumbers[backend], ...cardKeyWidths[backend]]) await sql.raw(statement).execute(db);
    expect(Number((await summary()).n)).toBe(3);
  });
});
