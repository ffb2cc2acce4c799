import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../test/helpers/harness.ts';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { cardKey, foldCardNumber, gameKey, pgRefoldCardKey, refoldCardKey } from './session-card-keys.ts';
import { cardKeyNumbers } from './migrations/021-card-key-numbers.ts';
import { cardKeyWidths } from './migrations/024-card-key-widths.ts';
import { gameCaseFolding } from './migrations/025-game-case-folding.ts';

/** The key releases 021–023 made (composed, folded, no width). */
const key021 = (row: Parameters<typeof cardKey>[0]) => {
  const norm = (s: string | null | undefined) => (s ?? '').normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
  const name = norm(row.name) || norm(row.full_name);
  return name ? [norm(row.id_type), name, norm(row.set_code) || norm(row.set_name), foldCardNumber(norm(row.card_number))].join('|') : null;
};

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

  it('as stored before 021 are made again as 021 made them', () => {
    for (const row of rows) expect(refoldCardKey(oldKey(row))).toBe(key021(row));
    expect(cardKey(pikachu)).toBe(cardKey({ ...pikachu, card_number: '25' }));
    expect(cardKey(flabebe)).toBe(cardKey({ ...flabebe, name: 'Flabébé' }));
    expect(cardKey({ id_type: 'tcg', name: 'ﾋﾟｶﾁｭｳ', set_code: 'ＳＶ２ａ', card_number: '０２５/１６５' })).toBe(cardKey({ id_type: 'tcg', name: 'ピカチュウ', set_code: 'SV2a', card_number: '25/165' }));
    // a field's | is escaped, not written as another character a name may hold (¦ made a¦b the card a|b)
    expect(cardKey({ name: 'a¦b' })).not.toBe(cardKey({ name: 'a|b' }));
    expect(cardKey({ name: 'a｜b' })).toBe(cardKey({ name: 'a|b' }));
    expect(cardKey({ name: 'a|b', set_code: 'c' })).not.toBe(cardKey({ name: 'a', set_code: 'b|c' }));
    expect(cardKey({ name: 'a\\|b' })).not.toBe(cardKey({ name: 'a|b' }));
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
      expect((await made.execute(db)).rows[0]?.k).toBe(key021(row));
    }
  });

  const addSession = async () => {
    const db = t.store.db;
    const now = new Date().toISOString();
    const [account, workspace] = [randomUUID(), randomUUID()];
    const id = randomUUID();
    await sql`INSERT INTO accounts (id, name, created_at) VALUES (${account}, 'a', ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, account_id, name, created_at) VALUES (${workspace}, ${account}, 'w', ${now})`.execute(db);
    await sql`INSERT INTO card_sessions (id, workspace_id, name, description, game, platform, status, started, client, meta_data, created_at, updated_at)
      VALUES (${id}, ${workspace}, 's', '', 'TCG', '', 'live', ${now}, '{}', '{}', ${now}, ${now})`.execute(db);
    return id;
  };
  const distinct = async (sessionId: string) => Number((await t.store.db.selectFrom('card_identifications').select((eb) => eb.fn.count<number>('card_key').distinct().as('n')).where('session_id', '=', sessionId).executeTakeFirstOrThrow()).n);

  it("021 re-keys a session's stored rows, so its summary counts one card once", async () => {
    const db = t.store.db;
    const now = new Date().toISOString();
    const sid = await addSession();
    const stored = [oldKey(pikachu), oldKey({ ...pikachu, card_number: '25' }), oldKey(flabebe), oldKey({ ...flabebe, name: 'Flabébé' })];
    for (const [i, key] of stored.entries()) {
      await sql`INSERT INTO card_identifications (id, session_id, event_id, card_key, created_at, updated_at) VALUES (${randomUUID()}, ${sid}, ${String(i)}, ${key}, ${now}, ${now})`.execute(db);
    }
    expect(await distinct(sid)).toBe(4);
    for (const statement of cardKeyNumbers[backend]) await sql.raw(statement).execute(db);
    expect(await distinct(sid)).toBe(2);
  });

  it('024 makes every key again from the row, as a fresh database would: widths one card, and what 021-era keys lost kept apart', async () => {
    const db = t.store.db;
    const now = new Date().toISOString();
    const sid = await addSession();
    const cards = [
      { id_type: 'tcg', name: 'ピカチュウ', set_code: 'SV2a', card_number: '025/165' },
      { id_type: 'tcg', name: 'ﾋﾟｶﾁｭｳ', set_code: 'ＳＶ２ａ', card_number: '０２５/１６５' },
      // NFKC's capitals (™ → TM, № → No) on a key already lower-cased, and a zero after a full-width digit that 021's fold dropped
      { id_type: 'tcg', name: 'Mewtwo', set_name: 'Pokémon™ TCG', card_number: '１05' },
      { id_type: 'tcg', name: 'Mewtwo', set_name: 'pokémontm tcg', card_number: '105' },
      { id_type: 'tcg', name: 'Mewtwo', set_name: 'Pokémon™ TCG', card_number: '15' },
      { id_type: 'tcg', name: 'Box', set_code: 'x', card_number: '№006' },
      // a full-width pipe is no separator: these are two cards
      { id_type: 'tcg', name: 'Pikachu', set_code: 'SV2a｜Promo', card_number: '1' },
      { id_type: 'tcg', name: 'Pikachu｜SV2a', set_code: 'Promo', card_number: '1' },
    ];
    for (const [i, c] of cards.entries()) {
      await sql`INSERT INTO card_identifications (id, session_id, event_id, id_type, name, set_code, set_name, card_number, card_key, created_at, updated_at)
        VALUES (${randomUUID()}, ${sid}, ${String(i)}, ${c.id_type}, ${c.name}, ${c.set_code ?? null}, ${c.set_name ?? null}, ${c.card_number}, ${key021(c)}, ${now}, ${now})`.execute(db);
    }
    expect(await distinct(sid)).toBe(8);
    await db.transaction().execute((trx) => cardKeyWidths.run!(trx, t.store.dialect));
    const keys = await db.selectFrom('card_identifications').select(['event_id', 'card_key']).where('session_id', '=', sid).orderBy('event_id').execute();
    expect(keys.map((k) => k.card_key)).toEqual(cards.map((c) => cardKey(c)));
    // the two Pikachu widths and the two Mewtwo 105s are one card each; Mewtwo 15, Box and the pipes their own
    expect(await distinct(sid)).toBe(6);
    // and the session's game key, as the list filter compares it (?game=pokémon did not find Ｐｏｋéｍｏｎ)
    await db.updateTable('card_sessions').set({ game: 'Ｐｏｋéｍｏｎ', game_key: 'ｐｏｋéｍｏｎ' }).where('id', '=', sid).execute();
    await db.transaction().execute((trx) => cardKeyWidths.run!(trx, t.store.dialect));
    expect((await db.selectFrom('card_sessions').select(['game', 'game_key']).where('id', '=', sid).executeTakeFirstOrThrow())).toEqual({ game: 'Ｐｏｋéｍｏｎ', game_key: 'pokémon' });
    // a documented game sent full-width is stored as the spec spells it, as today's code stores it
    await db.updateTable('card_sessions').set({ game: 'ＴＣＧ', game_key: 'ｔｃｇ' }).where('id', '=', sid).execute();
    await db.transaction().execute((trx) => cardKeyWidths.run!(trx, t.store.dialect));
    expect((await db.selectFrom('card_sessions').select(['game', 'game_key']).where('id', '=', sid).executeTakeFirstOrThrow())).toEqual({ game: 'TCG', game_key: 'tcg' });
    // migration 025: keys made by 024's lower case alone fold as Unicode case folding does
    await db.updateTable('card_sessions').set({ game: 'İSTANBUL ΚΑΡΤΕΣ STRAẞE', game_key: 'İSTANBUL ΚΑΡΤΕΣ STRAẞE'.toLowerCase() }).where('id', '=', sid).execute();
    await db.transaction().execute((trx) => gameCaseFolding.run!(trx, t.store.dialect));
    expect((await db.selectFrom('card_sessions').select(['game', 'game_key']).where('id', '=', sid).executeTakeFirstOrThrow())).toEqual({ game: 'İSTANBUL ΚΑΡΤΕΣ STRAẞE', game_key: 'istanbul καρτεσ strasse' });
  });
});

describe('gameKey', () => {
  it('folds case as Unicode does where lower case alone leaves two forms: final sigma, sharp s, dotted capital I', () => {
    expect(gameKey(' Pokémon ')).toBe('pokémon');
    expect(gameKey('ΚΑΡΤΕΣ')).toBe(gameKey('καρτες'));
    expect(gameKey('İstanbul')).toBe(gameKey('istanbul'));
    expect(gameKey('Straße')).toBe(gameKey('STRASSE'));
    expect(gameKey('STRAẞE')).toBe('strasse');
    expect(gameKey('ＴＣＧ')).toBe('tcg');
  });
});
