import fs from 'node:fs/promises';
import { createHash, randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { createQueryId, sql, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../test/helpers/harness.ts';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { CardSessionStore, refoldSessionSearch, SEARCH_WORD_MAX, sessionSearchText } from './card-session-store.ts';
import { foldForSearch } from './database.ts';
import { sessionSearchText as migration038 } from './migrations/038-session-search-text.ts';

describe.each(backends)('session search text (%s)', (backend) => {
  let t: TestStore;
  let workspace: string;
  beforeAll(async () => {
    t = await openTestStore(backend);
    const now = new Date().toISOString();
    const account = randomUUID();
    workspace = randomUUID();
    await sql`INSERT INTO accounts (id, name, created_at) VALUES (${account}, 'a', ${now})`.execute(t.store.db);
    await sql`INSERT INTO workspaces (id, account_id, name, created_at) VALUES (${workspace}, ${account}, 'w', ${now})`.execute(t.store.db);
  });
  afterAll(() => t?.close());

  const sessions = () => new CardSessionStore(t.store.db, t.store.dialect);
  const found = async (search: string) => (await sessions().listSessions(workspace, search, undefined, 50, 0)).rows.map((r) => r.name);
  const add = async (name: string, more: { description?: string; game?: string; platform?: string } = {}) => {
    const id = randomUUID();
    await sessions().insertSession({ id, workspace_id: workspace, name, description: more.description ?? '', game: more.game ?? '', game_key: (more.game ?? '').toLowerCase(), platform: more.platform ?? '', client: '{}', meta_data: '{}', started: new Date().toISOString() });
    return id;
  };

  it('038 folds the sessions stored before it, so they are found as new ones are', async () => {
    const now = new Date().toISOString();
    // as a release before 038 stored them: no search text
    for (const [name, game] of [['Straße Ärger', 'Pokémon'], ['ﾎﾟｹﾓﾝ 土曜', '']]) {
      await sql`INSERT INTO card_sessions (id, workspace_id, name, description, game, platform, status, started, client, meta_data, created_at, updated_at)
        VALUES (${randomUUID()}, ${workspace}, ${name}, '', ${game}, 'whatnot', 'live', ${now}, '{}', '{}', ${now}, ${now})`.execute(t.store.db);
    }
    expect(await found('strasse')).toEqual([]);
    await t.store.db.transaction().execute((trx) => migration038.run!(trx, t.store.dialect));
    expect(await found('strasse arger pokemon whatnot')).toEqual(['Straße Ärger']);
    expect(await found('ポケモン')).toEqual(['ﾎﾟｹﾓﾝ 土曜']);
  });

  it('sessions an older release stored without a search text are folded by the sweep, the others left alone', async () => {
    const now = new Date().toISOString();
    const id = randomUUID();
    await sql`INSERT INTO card_sessions (id, workspace_id, name, description, game, platform, status, started, client, meta_data, created_at, updated_at)
      VALUES (${id}, ${workspace}, 'Late writer Łukasz', '', '', '', 'live', ${now}, '{}', '{}', ${now}, ${now})`.execute(t.store.db);
    expect(await found('lukasz')).toEqual([]);
    expect(await refoldSessionSearch(t.store.db, t.store.dialect, { unfoldedOnly: true })).toBe(1);
    expect(await found('lukasz late')).toEqual(['Late writer Łukasz']);
    expect(await refoldSessionSearch(t.store.db, t.store.dialect, { unfoldedOnly: true })).toBe(0);
    // a session read for its answers does not carry its search text
    expect(await sessions().getSession(id, workspace)).not.toHaveProperty('search_text');
  });

  it('a session renamed while the sweep folds it is left as the rename wrote it, and folded with its new name (h238)', async () => {
    const now = new Date().toISOString();
    const [zofia, quirin] = [randomUUID(), randomUUID()];
    for (const [id, name] of [[zofia, 'Draft Zofia'], [quirin, 'Draft Quirin']]) {
      await sql`INSERT INTO card_sessions (id, workspace_id, name, description, game, platform, status, started, client, meta_data, created_at, updated_at)
        VALUES (${id}, ${workspace}, ${name}, '', '', '', 'live', ${now}, '{}', '{}', ${now}, ${now})`.execute(t.store.db);
    }
    // between the sweep's read and its write: this release renames one (with its text), an older node the other (without)
    const rename = async () => {
      const statements: [string, string, string][] = [[zofia, 'Final Zofia', sessionSearchText({ name: 'Final Zofia', description: '', platform: '', game: '' })], [quirin, 'Final Quirin', '']];
      if (t.store.dialect === 'postgres') {
        for (const [id, name, text] of statements) await sql`UPDATE card_sessions SET name = ${name}, search_text = ${text} WHERE id = ${id}`.execute(t.store.db);
      } else {
        // the store's own connection is busy with the read; another process's
        const other = new SQLite(t.store.file!);
        for (const [id, name, text] of statements) other.prepare('UPDATE card_sessions SET name = ?, search_text = ? WHERE id = ?').run(name, text, id);
        other.close();
      }
    };
    let renamed = false;
    const racing = t.store.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (!renamed && args.result.rows.some((r) => (r as { id?: unknown }).id === zofia)) {
          renamed = true;
          await rename();
        }
        return args.result;
      },
    });
    expect(await refoldSessionSearch(racing, t.store.dialect, { unfoldedOnly: true })).toBe(0);
    expect(renamed).toBe(true);
    expect(await found('zofia')).toEqual(['Final Zofia']);
    expect(await found('draft')).toEqual([]);
    // the older node's rename has no text still: the next sweep folds it, with the name it has now
    expect(await refoldSessionSearch(t.store.db, t.store.dialect, { unfoldedOnly: true })).toBe(1);
    expect(await found('quirin')).toEqual(['Final Quirin']);
    expect(await found('draft')).toEqual([]);
  });

  it.runIf(backend === 'sqlite')('SQLite reads a rare word from its trigram index, a common one by the list\'s order, the same sessions either way', async () => {
    // a change the index is not told of (its trigger dropped meanwhile) tells which one a search read
    const unindexed = async (trigger: string, change: () => Promise<unknown>) => {
      const [made] = (await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ${trigger}`.execute(t.store.db)).rows;
      await sql.raw(`DROP TRIGGER ${trigger}`).execute(t.store.db);
      try {
        await change();
      } finally {
        await sql.raw(made!.sql).execute(t.store.db);
      }
    };
    const id = await add('Xylophonist "binder"', { platform: 'Straße' });
    expect(await found('xylophonist')).toEqual(['Xylophonist "binder"']);
    expect(await found('"binder" strasse xyl')).toEqual(['Xylophonist "binder"']);
    expect(await found('st')).toContain('Xylophonist "binder"');
    // and the rows it names are read by their key, not by walking the workspace's (SQLite without statistics, h243)
    const statements: CompiledQuery[] = [];
    const watched = t.store.db.withPlugin({
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode') statements.push(t.store.db.getExecutor().compileQuery(args.node, createQueryId()));
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    await new CardSessionStore(watched, t.store.dialect).listSessions(workspace, 'xylophonist', undefined, 5, 0);
    const searches = statements.filter((q) => q.sql.includes('card_sessions_fts MATCH'));
    expect(searches.length).toBe(2);
    for (const q of searches) {
      const raw = new SQLite(t.store.file!, { readonly: true });
      const details = (raw.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[]).map((r) => r.detail);
      raw.close();
      expect(details.join(' | ')).toMatch(/SEARCH s USING INTEGER PRIMARY KEY/);
      expect(details.join(' | ')).not.toMatch(/card_sessions_workspace/);
    }
    // a word the stored text holds and the index does not: not found, so the index is what was read
    const text = (await sql<{ search_text: string }>`SELECT search_text FROM card_sessions WHERE id = ${id}`.execute(t.store.db)).rows[0]!.search_text;
    await unindexed('card_sessions_fts_update', () => sql`UPDATE card_sessions SET search_text = ${`${text} quokka`} WHERE id = ${id}`.execute(t.store.db));
    expect(await found('quokka')).toEqual([]);
    await unindexed('card_sessions_fts_update', () => sql`UPDATE card_sessions SET search_text = ${text} WHERE id = ${id}`.execute(t.store.db));
    // a word more than 5,000 sessions hold is scanned along the list instead: it finds one the index lacks
    const now = new Date().toISOString();
    const raw = new SQLite(t.store.file!);
    const insert = (names: string[]) =>
      raw.transaction(() => {
        const statement = raw.prepare(`INSERT INTO card_sessions (id, workspace_id, name, description, game, platform, status, started, client, meta_data, created_at, updated_at, search_text)
          VALUES (?, ?, ?, '', '', '', 'live', ?, '{}', '{}', ?, ?, ?)`);
        for (const name of names) statement.run(randomUUID(), workspace, name, now, now, now, sessionSearchText({ name, description: '', platform: '', game: '' }));
      })();
    insert(Array.from({ length: 5001 }, (_, i) => `Everyword ${i}`));
    await unindexed('card_sessions_fts_insert', async () => insert(['Everyword unindexed']));
    raw.close();
    expect((await sessions().listSessions(workspace, 'everyword', undefined, 5, 0)).count).toBe(5002);
    expect((await sessions().listSessions(workspace, 'everyword 4999', undefined, 5, 0)).count).toBe(1);
    await unindexed('card_sessions_fts_delete', () => sql`DELETE FROM card_sessions WHERE name = 'Everyword unindexed'`.execute(t.store.db));
    await sql`DELETE FROM card_sessions WHERE name LIKE 'Everyword %'`.execute(t.store.db);
    await sql`INSERT INTO card_sessions_fts (card_sessions_fts) VALUES ('integrity-check')`.execute(t.store.db);
  });

  it.runIf(backend === 'sqlite')('SQLite takes a deleted or renamed session\'s trigrams out of its index, and out of the database file (h243)', async () => {
    const fileHolds = async (letters: string) => {
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(t.store.db);
      return (await fs.readFile(t.store.file!)).includes(Buffer.from(letters));
    };
    const store = sessions();
    const gone = await add('鯱鰐鱏鯨');
    const renamed = await add('鶚鷲鷹鸛');
    expect(await fileHolds('鰐鱏')).toBe(true);
    expect(await fileHolds('鷲鷹')).toBe(true);
    await store.deleteSession(gone, workspace);
    expect(await store.updateSession(renamed, workspace, { name: 'Plain name' })).toBe(true);
    expect(await found('鯱鰐鱏')).toEqual([]);
    expect(await found('鶚鷲鷹')).toEqual([]);
    expect(await found('plain name')).toEqual(['Plain name']);
    expect(await fileHolds('鰐鱏')).toBe(false);
    expect(await fileHolds('鷲鷹')).toBe(false);
    await sql`INSERT INTO card_sessions_fts (card_sessions_fts) VALUES ('integrity-check')`.execute(t.store.db);
  });

  it('a PATCH of one field keeps the others searchable, and the old name is no longer found', async () => {
    const store = sessions();
    await add('Tuesday binder', { description: 'consignment', platform: 'ebay live' });
    const row = (await store.listSessions(workspace, 'tuesday', undefined, 5, 0)).rows[0]!;
    expect(await store.updateSession(row.id, workspace, { description: 'Ünïcode lot' })).toBe(true);
    expect(await found('tuesday unicode ebay')).toEqual(['Tuesday binder']);
    expect(await found('consignment')).toEqual([]);
    expect(await store.updateSession(row.id, workspace, { name: 'Wednesday binder' })).toBe(true);
    expect(await found('tuesday')).toEqual([]);
    expect(await found('wednesday unicode')).toEqual(['Wednesday binder']);
    // a session of another workspace is not changed
    expect(await store.updateSession(row.id, randomUUID(), { name: 'x' })).toBe(false);
  });

  it.runIf(backend === 'postgres')('a search uses the trigram index rather than folding every session', async () => {
    // in one transaction, so the scans counted are this search's; sessions enough that the planner weighs its choices
    const scans = await t.store.db.transaction().execute(async (trx) => {
      const started = Date.parse('2026-01-01T00:00:00Z');
      const rows = Array.from({ length: 3000 }, (_, i) => {
        const s = { id: randomUUID(), workspace_id: workspace, name: i === 1234 ? 'Needle in the haystack' : `Stream ${i}`, description: 'singles', game: 'Pokémon', game_key: 'pokémon', platform: 'whatnot' };
        const at = new Date(started + i * 60_000).toISOString();
        return { ...s, search_text: sessionSearchText(s), client: '{}', meta_data: '{}', status: 'live', started: at, created_at: at, updated_at: at };
      });
      for (let i = 0; i < rows.length; i += 500) await trx.insertInto('card_sessions').values(rows.slice(i, i + 500)).execute();
      await sql`ANALYZE card_sessions`.execute(trx);
      const { rows: page } = await new CardSessionStore(trx, 'postgres').listSessions(workspace, 'haystack needle', undefined, 20, 0);
      expect(page.map((r) => r.name)).toEqual(['Needle in the haystack']);
      return (await sql<{ n: string }>`SELECT pg_stat_get_xact_numscans('card_sessions_search'::regclass) AS n`.execute(trx)).rows[0]!.n;
    });
    expect(Number(scans)).toBeGreaterThan(0);
  });
});

describe('the session search fold', () => {
  it('is the one the stored search texts were made with (a change needs a migration calling refoldSessionSearch)', () => {
    // every kind of character the fold treats: case, width, marks, strokes, scripts, invisibles, final sigma
    const probe = 'ÉCLAIR Poke\u0301mon ＰＳＡ１０ ﾎﾟｹﾓﾝ ガ Straße Łódź Cœur Æsir Diyarbakır ΟΔΟΣ İstanbul שָׁלוֹם بوكـــيمون ٢٠٢٤ ک ة Glu\u00adrak Bisa\u200bsam ज़ №5 ™ ǅ \u200f';
    const folded = foldForSearch(probe);
    expect(createHash('sha256').update(folded).digest('hex').slice(0, 16), folded).toBe('85b7912b428d4c55');
    expect(sessionSearchText({ name: 'A', description: 'B', platform: 'C', game: 'D' })).toBe('a b c d');
  });

  it('keeps each word once, and a word to its first 256 characters (h234: fields of ﷺ stored 188,000 a session)', () => {
    expect(sessionSearchText({ name: 'Pikachu pikachu PIKACHU', description: 'Pikachu\tbinder\n binder', platform: '', game: 'Pokémon' })).toBe('pikachu binder pokemon');
    // each ﷺ folds to four words, 18 characters: kept once
    expect(sessionSearchText({ name: 'ﷺ'.repeat(255), description: 'ﷺ'.repeat(10_000), platform: 'ﷺ'.repeat(100), game: 'ﷺ'.repeat(100) }).length).toBeLessThan(30);
    expect([...sessionSearchText({ name: 'Ⅻ'.repeat(10_000), description: '', platform: '', game: '' })].length).toBe(SEARCH_WORD_MAX);
    expect(sessionSearchText({ name: '', description: '', platform: '', game: '' })).toBe('');
  });
});
