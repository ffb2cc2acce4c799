import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createSession, cs, startHarness, type Harness } from '../../helpers/harness.ts';
import { CardSessionStore } from '../../../src/store/card-session-store.ts';
import { canonicalJson } from '../../../src/util/canonical-json.ts';
import type { Store } from '../../../src/store/database.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { sql } from 'kysely';

describe.each(backends)('card sessions (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  it('creates a live session with every field and returns it', async () => {
    const res = await h.request('POST', cs('session/'), {
      body: { name: 'Friday stream', description: 'SV151 breaks', game: 'TCG', platform: 'whatnot', client: { name: 'scanner', version: '2.1', os: 'macOS' }, meta_data: { threshold: 0.4, nested: { a: [1, 2] } } },
    });
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(s).toMatchObject({ name: 'Friday stream', description: 'SV151 breaks', game: 'TCG', platform: 'whatnot', status: 'live', ended: null, identification_count: 0, total_price: 0, client: { name: 'scanner', version: '2.1', os: 'macOS' }, meta_data: { threshold: 0.4, nested: { a: [1, 2] } } });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(s.started)).toBeGreaterThan(Date.now() - 60_000);
    const got = await h.request('GET', cs(`session/${s.id}/`));
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(s);
    // a session sent back whole makes a live one; one sent closed or ended is refused, not made live unsaid (h277)
    const whole = await h.request('POST', cs('session/'), { body: { ...s, name: 'Copy' } });
    expect([whole.statusCode, whole.json().status]).toEqual([201, 'live']);
    // a form's blank status and ended are none, as null is (h278: refused)
    const blank = await h.request('POST', cs('session/'), { body: { name: 'Blank', status: '', ended: '' } });
    expect([blank.statusCode, blank.json().status, blank.json().ended], JSON.stringify(blank.json())).toEqual([201, 'live', null]);
    for (const [body, field] of [[{ name: 'Import', status: 'closed' }, 'status'], [{ name: 'Import', ended: '2025-01-01T12:00:00Z' }, 'ended']] as const) {
      const res = await h.request('POST', cs('session/'), { body });
      expect([res.statusCode, res.json().errors?.[0]?.field], JSON.stringify(res.json())).toEqual([400, field]);
      expect(res.json().detail).toContain('close/');
    }
  });

  it('accepts an empty body, no body and null fields; normalises game case', async () => {
    // a blank name is no name (h259: "" and "   " made sessions named so)
    for (const body of [{}, undefined, { name: null, game: null, client: null, meta_data: null }, { name: '' }, { name: ' \t ' }]) {
      const res = await h.request('POST', cs('session/'), body === undefined ? { headers: { 'content-type': 'application/json' } } : { body });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ status: 'live', game: '', description: '', client: {}, meta_data: {} });
      expect(res.json().name).toMatch(/^Session \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    }
    const sports = await h.request('POST', cs('session/'), { body: { game: 'sports' } });
    expect(sports.json().game).toBe('Sports');
    // a kind as id_type spells it is that kind (h264: stored as sent, `?game=Comics` missed it)
    const comic = await h.request('POST', cs('session/'), { body: { game: 'comic' } });
    expect(comic.json().game).toBe('Comics');
    expect((await h.request('GET', cs('session/?game=comics'))).json().results.map((r: { id: string }) => r.id)).toContain(comic.json().id);
    // and the filter by the value the app sent finds it (h268)
    expect((await h.request('GET', cs('session/?game=comic'))).json().results.map((r: { id: string }) => r.id)).toContain(comic.json().id);
    // one stored as sent before is the documented game after the upgrade, found and searched so
    const store = (h.app.loupe as unknown as { store: Store }).store;
    const old = (await h.request('POST', cs('session/'), { body: { name: 'old slab stream' } })).json().id as string;
    await sql`UPDATE card_sessions SET game = 'slab', game_key = 'slab' WHERE id = ${old}`.execute(store.db);
    await sql`DELETE FROM loupe_migrations WHERE name = '042-game-kind-names'`.execute(store.db);
    expect(await migrate(store)).toEqual(['042-game-kind-names']);
    expect((await h.request('GET', cs(`session/${old}/`))).json().game).toBe('Slabs');
    for (const q of ['game=slab', 'game=Slabs', 'search=slabs']) expect((await h.request('GET', cs(`session/?${q}`))).json().results.map((r: { id: string }) => r.id), q).toContain(old);
    // an app that sends its version as a number starts its session, and reads it back as sent
    const numbered = await h.request('POST', cs('session/'), { body: { client: { name: 'binder', version: 2.1, os: 'iOS' } } });
    expect([numbered.statusCode, numbered.json().client]).toEqual([201, { name: 'binder', version: 2.1, os: 'iOS' }]);
    // and its os as the device reports it (h264: a 400, no session)
    const device = { name: 'binder', version: '3', os: { name: 'iOS', version: '17.1' } };
    const described = await h.request('POST', cs('session/'), { body: { client: device } });
    expect([described.statusCode, described.json().client]).toEqual([201, device]);
    expect((await h.request('GET', cs(`session/${described.json().id}/`))).json().client).toEqual(device);
    // large numbers in their short form are kept and read back as sent; an id-like integer that lost digits is refused
    const big = await h.app.inject({ method: 'POST', url: cs('session/'), headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json' }, payload: '{"meta_data":{"views":1e21,"mole":6.022e23}}' });
    expect([big.statusCode, big.json().meta_data]).toEqual([201, { views: 1e21, mole: 6.022e23 }]);
    expect(big.body).toContain('"views":1e+21');
    expect(big.body).toContain('"mole":6.022e+23');
    const lost = await h.app.inject({ method: 'POST', url: cs('session/'), headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json' }, payload: '{"meta_data":{"order":12345678901234567891}}' });
    expect([lost.statusCode, lost.json().errors]).toEqual([400, [{ field: 'meta_data.order', message: 'cannot be kept exactly' }]]);
  });

  it('an Idempotency-Key makes a create sent again the same session, charged once; another body with the key is 422; a deleted session frees it', async () => {
    const acc = await h.newAccount(10);
    const credits = async () => (await h.app.loupe.accounts.getAccount(acc.account)).credits;
    const body = { name: 'Friday stream', game: 'TCG', meta_data: { table: 3, shop: 'north' } };
    const create = (key: string | undefined, b: unknown = body, query = '') => h.request('POST', cs(`session/${query}`), { token: acc.token, body: b, ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }) });
    const first = await create('scan-7f3a');
    expect([first.statusCode, first.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await credits()).toBe(9);
    // the same body with its keys in another order is the same create
    const again = await create('scan-7f3a', { meta_data: { shop: 'north', table: 3 }, game: 'TCG', name: 'Friday stream' });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.json()]).toEqual([201, 'true', first.json()]);
    expect(await credits()).toBe(9);
    // a field sent as null is one not sent: the same create
    const nulls = await create('scan-7f3a', { ...body, description: null, platform: null });
    expect([nulls.statusCode, nulls.headers['idempotent-replayed'], nulls.json()]).toEqual([201, 'true', first.json()]);
    expect(await credits()).toBe(9);
    // as it would be stored: empty fields, the game with spaces around it, a field the create ignores (h241: 422)
    for (const spelt of [{ ...body, description: '', platform: '', client: {} }, { ...body, game: ' tcg' }, { ...body, started: '2026-12-07T00:00:00Z' }]) {
      const same = await create('scan-7f3a', spelt);
      expect([same.statusCode, same.headers['idempotent-replayed'], same.json().id], JSON.stringify(spelt)).toEqual([201, 'true', first.json().id]);
    }
    expect(await credits()).toBe(9);
    expect((await create('scan-7f3a', { ...body, game: 'Pokémon' })).statusCode).toBe(422);
    const other = await create('scan-7f3a', { ...body, name: 'Saturday stream' });
    expect([other.statusCode, other.json().code, other.json().errors]).toEqual([422, 'idempotency_key_reused', [{ field: 'idempotency-key', message: 'used with another body' }]]);
    expect(await credits()).toBe(9);
    // two at once with one key: one session
    const both = await Promise.all([create('scan-both'), create('scan-both')]);
    expect(both.map((r) => r.statusCode)).toEqual([201, 201]);
    expect(both[0]!.json().id).toBe(both[1]!.json().id);
    expect(await credits()).toBe(8);
    // without a key, two sessions; another workspace keeps its own keys
    const [a, b] = [await create(undefined), await create(undefined)];
    expect(a.json().id).not.toBe(b.json().id);
    const ws2 = (await h.app.loupe.accounts.addWorkspace(acc.account, 'second')).workspace;
    const elsewhere = await create('scan-7f3a', body, `?workspace=${ws2}`);
    expect([elsewhere.statusCode, elsewhere.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(elsewhere.json().id).not.toBe(first.json().id);
    expect(await credits()).toBe(5);
    // a deleted session frees its key: a create with it is a new session
    expect((await h.request('DELETE', cs(`session/${first.json().id}/`), { token: acc.token })).statusCode).toBe(204);
    const anew = await create('scan-7f3a', { ...body, name: 'Sunday stream' });
    expect([anew.statusCode, anew.json().name]).toEqual([201, 'Sunday stream']);
    for (const key of ['', 'has space', 'x'.repeat(256), 'é']) {
      const bad = await create(key);
      expect([key, bad.statusCode, bad.json().errors?.[0]?.field]).toEqual([key, 400, 'idempotency-key']);
    }
    // said in words, not as the regular expression (h310: `must match pattern "^[\x21-\x7e]+$"`)
    expect((await create('has space')).json().detail).toBe('idempotency-key must be printable ASCII without spaces (the characters ! to ~).');
  });

  it('a key stored before the create was hashed as stored (the body as sent) still replays its create', async () => {
    const acc = await h.newAccount(5);
    const body = { name: 'Old key', game: 'TCG', started: 'client time' };
    const { db, dialect } = (h.app.loupe as unknown as { store: Store }).store;
    const store = new CardSessionStore(db, dialect);
    const id = randomUUID();
    await store.insertSession({ id, workspace_id: acc.workspace, name: 'Old key', description: '', game: 'TCG', game_key: 'tcg', platform: '', client: '{}', meta_data: '{}', started: new Date().toISOString(), idempotency: { key: 'before-051', bodyHash: createHash('sha256').update(canonicalJson(body)).digest('hex') } });
    const again = await h.request('POST', cs('session/'), { token: acc.token, body, headers: { 'idempotency-key': 'before-051' } });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.json().id]).toEqual([201, 'true', id]);
  });

  it('a create whose workspace was erased after the token was checked is its 404, not a 500 (h244)', async () => {
    // as `loupe workspace delete` leaves a call already past its check: the workspace gone before the insert
    const gone = randomUUID();
    const create = h.app.loupe.cardSessions.createSession({ workspaceId: gone, baseUrl: 'http://localhost' }, { name: 'late' });
    await expect(create).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('retries of one create at once, from an account with few credits, are one session charged once: none is refused for credits', async () => {
    const acc = await h.newAccount(3);
    const credits = async () => (await h.app.loupe.accounts.getAccount(acc.account)).credits;
    const create = (key: string, b: unknown) => h.request('POST', cs('session/'), { token: acc.token, body: b, headers: { 'idempotency-key': key } });
    const retries = await Promise.all(Array.from({ length: 20 }, () => create('retry-1', { name: 'one' })));
    expect(retries.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(retries.map((r) => r.json().id)).size).toBe(1);
    expect(await credits()).toBe(2);
    // one key with other bodies at once: one session, the others 422, none 402
    const mixed = await Promise.all(Array.from({ length: 10 }, (_, i) => create('retry-2', { name: `n${i}` })));
    expect(mixed.map((r) => r.statusCode).sort()).toEqual([201, ...Array(9).fill(422)]);
    expect(await credits()).toBe(1);
    // the last credit spent, a retry of a create that succeeded is still its session, free
    expect((await create('retry-3', { name: 'three' })).statusCode).toBe(201);
    expect(await credits()).toBe(0);
    const again = await create('retry-3', { name: 'three' });
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    // a new create it cannot pay for is 402, and nothing is kept
    const unpaid = await create('retry-4', { name: 'four' });
    expect([unpaid.statusCode, unpaid.json().code]).toEqual([402, 'insufficient_credits']);
    expect((await h.request('GET', cs('session/?search=four'), { token: acc.token })).json().count).toBe(0);
    expect(await credits()).toBe(0);
  });

  it('a walk of the list repeats no session created during it: its links carry the first page\'s up_to (h241)', async () => {
    const acc = await h.newAccount(20);
    for (const name of ['walk1', 'walk2', 'walk3']) await createSession(h, { name }, acc.token);
    const list = async (url: string) => (await h.request('GET', url, { token: acc.token })).json() as { count: number; next: string | null; results: { name: string }[] };
    const first = await list(cs('session/?page_size=2'));
    expect(first.results.map((r) => r.name)).toEqual(['walk3', 'walk2']);
    expect(first.next).toMatch(/[?&]up_to=\d+/);
    await createSession(h, { name: 'made during the walk' }, acc.token);
    const second = await list(new URL(first.next!).pathname + new URL(first.next!).search);
    expect(second.results.map((r) => r.name)).toEqual(['walk1']);
    expect(second.count).toBe(3);
    // a new walk lists it
    expect((await list(cs('session/?page_size=2'))).results[0]!.name).toBe('made during the walk');
    // past what either backend holds: a 400 on both (PostgreSQL's was a 400, SQLite's a 200, h243)
    expect((await h.request('GET', cs('session/?up_to=99999999999999999999'), { token: acc.token })).statusCode).toBe(400);
  });

  it('rejects bad session fields with 400 naming the field', async () => {
    const long = await h.request('POST', cs('session/'), { body: { name: 'x'.repeat(256) } });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'name' }] });
    expect(long.json().detail).toContain('name');
    const game = await h.request('POST', cs('session/'), { body: { game: 'g'.repeat(101) } });
    expect(game.statusCode).toBe(400);
    expect(game.json().errors[0].field).toBe('game');
    const type = await h.request('POST', cs('session/'), { body: { name: 42 } });
    expect(type.statusCode).toBe(400);
    // Free text, kept as sent: names of Object.prototype's members are games like any other.
    for (const g of ['__proto__', 'constructor', 'toString']) {
      const proto = await h.request('POST', cs('session/'), { body: { game: g } });
      expect(proto.statusCode, g).toBe(201);
      expect(proto.json().game, g).toBe(g);
    }
    const meta = await h.request('POST', cs('session/'), { body: { meta_data: 'settings' } });
    expect(meta.statusCode).toBe(400);
    expect(meta.json().errors[0].field).toBe('meta_data');
    const bigMeta = await h.request('POST', cs('session/'), { body: { meta_data: { blob: 'x'.repeat(70_000) } } });
    expect(bigMeta.statusCode).toBe(400);
    expect(bigMeta.json().errors[0].field).toBe('meta_data');
    // numbers JSON cannot keep as sent are refused, not stored as null or rounded
    for (const [payload, field] of [['{"meta_data":{"n":1e309}}', 'meta_data.n'], ['{"meta_data":{"big":123456789012345678901234567890}}', 'meta_data.big']]) {
      const res = await h.request('POST', cs('session/'), { payload, headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().errors[0].field).toBe(field);
      expect(res.json().detail).toContain('send it as a string');
    }
  });

  it('renames with PATCH, and keeps the name limit', async () => {
    const id = await createSession(h, { name: 'old' });
    const res = await h.request('PATCH', cs(`session/${id}/`), { body: { name: 'new name' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, name: 'new name' });
    expect((await h.request('PATCH', cs(`session/${id}/`), { body: { name: 'n'.repeat(256) } })).statusCode).toBe(400);
    expect((await h.request('PATCH', cs(`session/${id}/`), { body: {} })).statusCode).toBe(400);
    // a blank name is refused, the name kept (h259: it was taken)
    for (const name of ['', '   ']) {
      const blank = await h.request('PATCH', cs(`session/${id}/`), { body: { name } });
      expect([blank.statusCode, blank.json().detail]).toEqual([400, 'name must not be blank: a session always has a name.']);
    }
    expect((await h.request('GET', cs(`session/${id}/`))).json().name).toBe('new name');
    expect((await h.request('PATCH', cs(`session/${randomUUID()}/`), { body: { name: 'x' } })).statusCode).toBe(404);
  });

  it('PATCH also changes description and meta_data (absent unchanged, null cleared); a body naming none of its fields is 400', async () => {
    const id = await createSession(h, { name: 'keep', description: 'd', meta_data: { a: 1 } });
    const both = await h.request('PATCH', cs(`session/${id}/`), { body: { description: 'Friday 🃏', meta_data: { shop: 'x', n: [1, 2] } } });
    expect(both.statusCode).toBe(200);
    expect(both.json()).toMatchObject({ name: 'keep', description: 'Friday 🃏', meta_data: { shop: 'x', n: [1, 2] } });
    expect((await h.request('GET', cs(`session/?search=friday`))).json().results.map((r: { id: string }) => r.id)).toContain(id);
    const cleared = await h.request('PATCH', cs(`session/${id}/`), { body: { description: null, meta_data: null } });
    expect(cleared.json()).toMatchObject({ name: 'keep', description: '', meta_data: {} });
    const nothing = await h.request('PATCH', cs(`session/${id}/`), { body: { notes: 'x', id: 'y' } });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().detail).toMatch(/^Nothing to change: send name, description, meta_data, game or platform \(/);
    // a name sent as null is told why it changed nothing (h241: "send name", which the client had sent)
    const unnamed = await h.request('PATCH', cs(`session/${id}/`), { body: { name: null } });
    expect([unnamed.statusCode, unnamed.json().detail]).toEqual([400, expect.stringMatching(/null is taken as not sent: a session always has a name/)]);
    // closing by PATCH is told the way
    const closing = await h.request('PATCH', cs(`session/${id}/`), { body: { status: 'closed' } });
    expect(closing.statusCode).toBe(400);
    expect(closing.json().detail).toMatch(/status is changed by POST …\/session\/.+\/close\/ or …\/reopen\/, not by PATCH/);
    expect((await h.request('PATCH', cs(`session/${id}/`), { body: { meta_data: { big: 'x'.repeat(70_000) } } })).statusCode).toBe(400);
    expect((await h.request('PATCH', cs(`session/${id}/`), { payload: '{"meta_data":{"n":1e309}}', headers: { 'content-type': 'application/json' } })).statusCode).toBe(400);
    expect((await h.request('GET', cs(`session/${id}/`))).json()).toMatchObject({ description: '', meta_data: {} });
  });

  it('PATCH changes game and platform too (a settings form saved whole); a whole session sent back passes, a status change is 400', async () => {
    const id = await createSession(h, { name: 'form', game: '', platform: '' });
    const saved = await h.request('PATCH', cs(`session/${id}/`), { body: { name: 'renamed', game: 'comics', platform: 'other' } });
    expect(saved.statusCode).toBe(200);
    // a documented game in its spelling, as at create
    expect(saved.json()).toMatchObject({ name: 'renamed', game: 'Comics', platform: 'other' });
    expect((await h.request('GET', cs('session/?game=COMICS'))).json().results.map((r: { id: string }) => r.id)).toContain(id);
    expect((await h.request('PATCH', cs(`session/${id}/`), { body: { game: null, platform: null } })).json()).toMatchObject({ name: 'renamed', game: '', platform: '' });
    // the session as GET gave it, one field edited
    const whole = (await h.request('GET', cs(`session/${id}/`))).json();
    const back = await h.request('PATCH', cs(`session/${id}/`), { body: { ...whole, name: 'from the form' } });
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ name: 'from the form', status: 'live' });
    const closing = await h.request('PATCH', cs(`session/${id}/`), { body: { ...whole, status: 'closed' } });
    expect(closing.statusCode).toBe(400);
    expect(closing.json().detail).toMatch(/close\/.*reopen\//);
    expect((await h.request('GET', cs(`session/${id}/`))).json()).toMatchObject({ name: 'from the form', status: 'live' });
    expect((await h.request('PATCH', cs(`session/${id}/`), { body: { game: 'g'.repeat(101) } })).statusCode).toBe(400);
  });

  it('closes, closes again, reopens, reopens again; ended follows the state', async () => {
    const id = await createSession(h);
    const closed = await h.request('POST', cs(`session/${id}/close/`));
    expect(closed.statusCode).toBe(200);
    expect(closed.json().status).toBe('closed');
    const ended = closed.json().ended as string;
    expect(Date.parse(ended)).not.toBeNaN();

    await new Promise((r) => setTimeout(r, 5));
    // An empty body is "no body" whatever its content type says.
    const again = await h.request('POST', cs(`session/${id}/close/`), { headers: { 'content-type': 'text/plain' } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ status: 'closed', ended });

    const reopened = await h.request('POST', cs(`session/${id}/reopen/`));
    expect(reopened.statusCode).toBe(200);
    expect(reopened.json()).toMatchObject({ id, status: 'live', ended: null });
    const reopenedAgain = await h.request('POST', cs(`session/${id}/reopen/`));
    expect(reopenedAgain.statusCode).toBe(200);
    expect(reopenedAgain.json()).toMatchObject({ status: 'live', ended: null });
  });

  it("has a version: If-Match with it holds until the session changes, cards sent meanwhile aside (h259: a late close/ retry closed a reopened session)", async () => {
    const id = await createSession(h, { name: 'stream' });
    const read = await h.request('GET', cs(`session/${id}/`));
    const v1 = read.json().etag as string;
    expect(v1).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(read.headers.etag).toBe(v1);
    // cards sent do not change it: the phone's close is not refused for its own uploads
    expect((await h.request('POST', cs(`session/${id}/identifications/`), { headers: { 'if-match': v1 }, body: { identifications: [{ event_id: 'a', name: 'Pikachu', price: 2 }] } })).statusCode).toBe(200);
    expect((await h.request('GET', cs(`session/${id}/`))).json().etag).toBe(v1);
    // the phone closes (its answer lost); a tablet reopens with the version it read after; the phone's retry is refused
    const closed = await h.request('POST', cs(`session/${id}/close/`), { headers: { 'if-match': v1 } });
    expect([closed.statusCode, closed.json().status]).toEqual([200, 'closed']);
    const v2 = closed.headers.etag as string;
    expect(v2).toBe(closed.json().etag);
    expect(v2).not.toBe(v1);
    // the phone's own retry, its answer lost, is a success that writes nothing (h263: 412, "changed elsewhere")
    const retried = await h.request('POST', cs(`session/${id}/close/`), { headers: { 'if-match': v1 } });
    expect([retried.statusCode, retried.json().etag]).toEqual([200, v2]);
    const reopened = await h.request('POST', cs(`session/${id}/reopen/`), { headers: { 'if-match': v2 } });
    expect([reopened.statusCode, reopened.json().status]).toEqual([200, 'live']);
    const retry = await h.request('POST', cs(`session/${id}/close/`), { headers: { 'if-match': v1 } });
    expect([retry.statusCode, retry.json().code]).toEqual([412, 'precondition_failed']);
    expect(retry.json().detail).toContain(reopened.json().etag);
    expect((await h.request('GET', cs(`session/${id}/`))).json().status).toBe('live');
    // a rename with the current version holds and moves it; the same again with the old one is refused
    const v3 = reopened.json().etag as string;
    const renamed = await h.request('PATCH', cs(`session/${id}/`), { headers: { 'if-match': v3 }, body: { name: 'renamed' } });
    expect([renamed.statusCode, renamed.headers.etag]).toEqual([200, renamed.json().etag]);
    expect((await h.request('PATCH', cs(`session/${id}/`), { headers: { 'if-match': v3 }, body: { name: 'again' } })).statusCode).toBe(412);
    // a PATCH to what the session says already writes nothing: its version stays, with an old If-Match or none (h263)
    expect((await h.request('PATCH', cs(`session/${id}/`), { headers: { 'if-match': v3 }, body: { name: 'renamed' } })).json().etag).toBe(renamed.json().etag);
    expect((await h.request('PATCH', cs(`session/${id}/`), { body: { name: 'renamed', meta_data: {} } })).json().etag).toBe(renamed.json().etag);
    // a reopen of a live session with its version is still a success that changes nothing
    const same = await h.request('POST', cs(`session/${id}/reopen/`), { headers: { 'if-match': renamed.json().etag } });
    expect([same.statusCode, same.json().etag]).toEqual([200, renamed.json().etag]);
    // an upload or delete with an old version is refused, nothing done
    expect((await h.request('POST', cs(`session/${id}/identifications/`), { headers: { 'if-match': v1 }, body: { identifications: [{ event_id: 'b' }] } })).statusCode).toBe(412);
    expect((await h.request('DELETE', cs(`session/${id}/`), { headers: { 'if-match': v1 } })).statusCode).toBe(412);
    expect((await h.request('GET', cs(`identification/?session=${id}`))).json().count).toBe(1);
    expect((await h.request('DELETE', cs(`session/${id}/`), { headers: { 'if-match': `"other", ${renamed.json().etag}` } })).statusCode).toBe(204);
  });

  it('a read racing the session\'s delete answers the session whole or 404, never empty (h277: PostgreSQL answered 200 with no rows)', async () => {
    let odd: string[] = [];
    for (let round = 0; round < 4; round++) {
      const id = await createSession(h);
      const up = await h.request('POST', cs(`session/${id}/identifications/`), { body: { identifications: Array.from({ length: 300 }, (_, i) => ({ event_id: `r${i}`, name: `Card ${i}`, price: 1 })) } });
      expect(up.statusCode).toBe(200);
      const reads = [
        ...Array.from({ length: 3 }, (_, p) => ['page', `identification/?session=${id}&page_size=100&page=${p + 1}`] as const),
        ['summary', `session/${id}/summary/`] as const,
        ['event', `identification/?session=${id}&event_id=r5`] as const,
      ];
      const answers = Promise.all(
        Array.from({ length: 3 }, () => reads)
          .flat()
          .map(async ([kind, path]) => {
            const res = await h.request('GET', cs(path));
            if (res.statusCode === 404) return undefined;
            const b = res.json();
            const whole = kind === 'page' ? b.results.length === 100 : kind === 'summary' ? b.identifications === 300 : b.results.length === 1;
            return whole && res.statusCode === 200 ? undefined : `${kind} ${res.statusCode} ${JSON.stringify(b).slice(0, 120)}`;
          }),
      );
      await new Promise((r) => setTimeout(r, round * 3));
      expect((await h.request('DELETE', cs(`session/${id}/`))).statusCode).toBe(204);
      odd = [...odd, ...(await answers).filter((x): x is string => x !== undefined)];
    }
    expect(odd).toEqual([]);
  });

  it('a batch that came before a close is stored though the close overtook it while it was read; one after the close is 409 (h277: it was refused and lost)', async () => {
    for (const delay of [20, 60]) {
      const id = await createSession(h);
      const batch = h.request('POST', cs(`session/${id}/identifications/`), { body: { identifications: Array.from({ length: 1000 }, (_, i) => ({ event_id: `b${i}`, name: `Card ${i}`, price: 1 })) } });
      await new Promise((r) => setTimeout(r, delay));
      const close = await h.request('POST', cs(`session/${id}/close/`));
      const stored = await batch;
      expect([stored.statusCode, close.statusCode], stored.body.slice(0, 200)).toEqual([200, 200]);
      expect((await h.request('GET', cs(`session/${id}/`))).json()).toMatchObject({ status: 'closed', identification_count: 1000 });
      const late = await h.request('POST', cs(`session/${id}/identifications/`), { body: { identifications: [{ event_id: 'after-close', name: 'Late' }] } });
      expect([late.statusCode, late.json().code]).toEqual([409, 'session_closed']);
    }
  }, 60_000);

  it('deletes a session; afterwards every endpoint answers 404', async () => {
    const id = await createSession(h);
    // an If-Match naming another version does not hold (412, nothing done); `*` does (it was ignored, h195)
    for (const [method, body] of [['DELETE', undefined], ['PATCH', { name: 'stale' }]] as const) {
      const stale = await h.request(method, cs(`session/${id}/`), { headers: { 'if-match': '"stale-version"' }, ...(body ? { body } : {}) });
      expect([stale.statusCode, stale.json().code], method).toEqual([412, 'precondition_failed']);
    }
    // and on close, reopen and a batch upload, which ignored it (h241: a late retry of close/ after a reopen closed again)
    for (const [path, body] of [['close/', undefined], ['identifications/', { identifications: [{ event_id: 'late' }] }]] as const) {
      const stale = await h.request('POST', cs(`session/${id}/${path}`), { headers: { 'if-match': '"stale-version"' }, ...(body ? { body } : {}) });
      expect([stale.statusCode, stale.json().code], path).toEqual([412, 'precondition_failed']);
    }
    // a reopen of the live session is so already: a success that writes nothing, whatever the version (h263)
    expect((await h.request('POST', cs(`session/${id}/reopen/`), { headers: { 'if-match': '"stale-version"' } })).statusCode).toBe(200);
    expect((await h.request('GET', cs(`session/${id}/`))).json().status).toBe('live');
    expect((await h.request('GET', cs(`identification/?session=${id}`))).json().count).toBe(0);
    // a session that does not exist is its 404, whatever If-Match says (h243)
    for (const [method, path] of [['POST', 'close/'], ['POST', 'reopen/'], ['PATCH', ''], ['DELETE', '']] as const) {
      const missing = await h.request(method, cs(`session/00000000-0000-4000-8000-000000000000/${path}`), { headers: { 'if-match': '"stale-version"' }, ...(method === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(missing.statusCode, `${method} ${path}`).toBe(404);
    }
    expect((await h.request('POST', cs(`session/${id}/close/`), { headers: { 'if-match': '*' } })).statusCode).toBe(200);
    expect((await h.request('POST', cs(`session/${id}/reopen/`), { headers: { 'if-match': '*' } })).statusCode).toBe(200);
    expect((await h.request('GET', cs(`session/${id}/`))).json().name).not.toBe('stale');
    expect((await h.request('PATCH', cs(`session/${id}/`), { headers: { 'if-match': '*' }, body: { name: 'any version' } })).statusCode).toBe(200);
    const del = await h.request('DELETE', cs(`session/${id}/`), { headers: { 'if-match': '*' } });
    expect(del.statusCode).toBe(204);
    for (const [method, path] of [
      ['GET', `session/${id}/`],
      ['DELETE', `session/${id}/`],
      ['POST', `session/${id}/close/`],
      ['POST', `session/${id}/reopen/`],
      ['GET', `session/${id}/summary/`],
      ['GET', `identification/?session=${id}`],
    ] as const) {
      const res = await h.request(method, cs(path));
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const upload = await h.request('POST', cs(`session/${id}/identifications/`), { body: { identifications: [{ event_id: 'a' }] } });
    expect(upload.statusCode).toBe(404);
  });

  it('answers 404 for malformed and unknown ids, never 500', async () => {
    for (const id of ['nope', '123', randomUUID(), "1' OR '1'='1", '%00']) {
      const res = await h.request('GET', cs(`session/${encodeURIComponent(id)}/`));
      expect(res.statusCode, id).toBe(404);
    }
    expect((await h.request('PATCH', cs('identification/not-a-uuid/'), { body: { name: 'x' } })).statusCode).toBe(404);
  });

  it('lists newest first with pages, absolute next/previous and search', async () => {
    const ws = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'listing')).workspace;
    const q = `workspace=${ws}`;
    for (let i = 0; i < 55; i++) {
      const res = await h.request('POST', cs(`session/?${q}`), { body: { name: i % 10 === 0 ? `Binder ${i}` : `Stream ${i}`, platform: i === 3 ? 'TikTok_Live' : 'other' } });
      expect(res.statusCode).toBe(201);
    }
    const p1 = await h.request('GET', cs(`session/?${q}`));
    expect(p1.statusCode).toBe(200);
    const b1 = p1.json();
    expect(b1.count).toBe(55);
    expect(b1.results).toHaveLength(50);
    expect(b1.previous).toBeNull();
    expect(b1.next).toMatch(/^http:\/\/localhost(:\d+)?\/cardstream\/v2\/session\/\?workspace=[0-9a-f-]+&up_to=\d+&page=2$/);
    expect(b1.results[0].name).toBe('Stream 54');
    const p2 = await h.request('GET', new URL(b1.next).pathname + new URL(b1.next).search);
    const b2 = p2.json();
    expect(b2.results).toHaveLength(5);
    expect(b2.next).toBeNull();
    expect(b2.previous).toContain('page=1');
    const all = [...b1.results, ...b2.results].map((s: { id: string }) => s.id);
    expect(new Set(all).size).toBe(55);

    const search = await h.request('GET', cs(`session/?${q}&search=binder`));
    expect(search.json().count).toBe(6);
    expect(search.json().results.every((s: { name: string }) => s.name.startsWith('Binder'))).toBe(true);
    // LIKE wildcards in the search text are literal.
    expect((await h.request('GET', cs(`session/?${q}&search=${encodeURIComponent('%')}`))).json().count).toBe(0);
    expect((await h.request('GET', cs(`session/?${q}&search=tiktok_`))).json().count).toBe(1);
    // every word typed, anywhere in the fields, in any order (h157: "mrs jones" found no "Mrs. Jones collection")
    const wsWords = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'words')).workspace;
    await h.app.loupe.accounts.addCredits(h.account.account, 10);
    expect((await h.request('POST', cs(`session/?workspace=${wsWords}`), { body: { name: 'Binder buy — Mrs. Jones collection', platform: 'counter' } })).statusCode).toBe(201);
    for (const [term, n] of [['mrs jones', 1], ['jones binder', 1], ['Mrs. Jones', 1], ['jones counter', 1], ['jones smith', 0], ['binder  buy', 1]] as const) {
      expect((await h.request('GET', cs(`session/?workspace=${wsWords}&search=${encodeURIComponent(term)}`))).json().count, term).toBe(n);
    }
    // Case folds beyond A-Z on both backends: a French name in capitals is found as typed and in lower case.
    const ws2 = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'accents')).workspace;
    expect((await h.request('POST', cs(`session/?workspace=${ws2}`), { body: { name: 'ÉCLAIR binder' } })).statusCode).toBe(201);
    for (const term of ['ÉCLAIR', 'éclair', 'Éclair binder']) {
      expect((await h.request('GET', cs(`session/?workspace=${ws2}&search=${encodeURIComponent(term)}`))).json().count, term).toBe(1);
    }
    // composed or not: a name sent decomposed (e + combining acute, as some keyboards send it) is found either way, and kept as sent
    const decomposed = 'Poke\u0301mon night';
    const created = await h.request('POST', cs(`session/?workspace=${ws2}`), { body: { name: decomposed } });
    expect(created.json().name).toBe(decomposed);
    // and without its accents, as a French shop types on a phone (found only as typed before)
    for (const term of ['pokémon', 'POKE\u0301MON', 'pokemon', 'POKEMON', 'eclair']) {
      expect((await h.request('GET', cs(`session/?workspace=${ws2}&search=${encodeURIComponent(term)}`))).json().count, term).toBe(1);
    }
    // a Japanese voiced kana is not its unvoiced one (its mark is not an accent)
    expect((await h.request('POST', cs(`session/?workspace=${ws2}`), { body: { name: 'ポケモン ガ' } })).statusCode).toBe(201);
    expect((await h.request('GET', cs(`session/?workspace=${ws2}&search=${encodeURIComponent('ガ')}`))).json().count).toBe(1);
    expect((await h.request('GET', cs(`session/?workspace=${ws2}&search=${encodeURIComponent('カ')}`))).json().count).toBe(0);
    // width as Japanese input methods type it is no other text: full-width Latin and digits, half-width kana (not found before)
    const wsJp = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'widths')).workspace;
    for (const name of ['ＰＳＡ１０ まとめ', 'ﾎﾟｹﾓﾝｶｰﾄﾞ 土曜', 'PSA9 bulk', 'Box №5', 'Pikachu™ promo', 'ǅemal']) expect((await h.request('POST', cs(`session/?workspace=${wsJp}`), { body: { name } })).statusCode).toBe(201);
    // NFKC's own capitals (№ No, ™ TM) fold too, alike on both backends (PostgreSQL's LIKE told their case apart), and ǅ keeps no caron
    for (const [term, found] of [['psa1', ['ＰＳＡ１０ まとめ']], ['ＰＳＡ９', ['PSA9 bulk']], ['１０', ['ＰＳＡ１０ まとめ']], ['ポケモンカード', ['ﾎﾟｹﾓﾝｶｰﾄﾞ 土曜']], ['ﾎﾟｹﾓﾝ', ['ﾎﾟｹﾓﾝｶｰﾄﾞ 土曜']], ['no5', ['Box №5']], ['pikachutm', ['Pikachu™ promo']], ['dzemal', ['ǅemal']]] as const) {
      const res = (await h.request('GET', cs(`session/?workspace=${wsJp}&search=${encodeURIComponent(term)}`))).json();
      expect(res.results.map((r: { name: string }) => r.name), term).toEqual(found);
    }
    // letters whose lower case depends on context fold alike on both backends: a Greek final sigma, a dotted capital I
    const ws3 = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'context')).workspace;
    for (const name of ['İstanbul 2', 'ΟΔΟΣ 3']) expect((await h.request('POST', cs(`session/?workspace=${ws3}`), { body: { name } })).statusCode).toBe(201);
    for (const [term, found] of [['istanbul', 'İstanbul 2'], ['İSTANBUL', 'İstanbul 2'], ['i\u0307stanbul', 'İstanbul 2'], ['οδος', 'ΟΔΟΣ 3'], ['οδοσ', 'ΟΔΟΣ 3'], ['ΟΔΟΣ', 'ΟΔΟΣ 3']]) {
      const res = (await h.request('GET', cs(`session/?workspace=${ws3}&search=${encodeURIComponent(term!)}`))).json();
      expect(res.results.map((r: { name: string }) => r.name), term).toEqual([found]);
    }
    // Hebrew points, Arabic vowels and tatweel, soft hyphens and zero-width characters are not the word (h94)
    const ws4 = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'marks')).workspace;
    for (const name of ['שָׁלוֹם חֲבֵרִים', 'Glu\u00adrak', 'Bisa\u200bsam', 'بوكـــيمون', 'بِطَاقَاتُ']) expect((await h.request('POST', cs(`session/?workspace=${ws4}`), { body: { name } })).statusCode).toBe(201);
    for (const [term, found] of [['שלום', 'שָׁלוֹם חֲבֵרִים'], ['Glurak', 'Glu\u00adrak'], ['bisasam', 'Bisa\u200bsam'], ['بوكيمون', 'بوكـــيمون'], ['بطاقات', 'بِطَاقَاتُ']]) {
      const res = (await h.request('GET', cs(`session/?workspace=${ws4}&search=${encodeURIComponent(term!)}`))).json();
      expect(res.results.map((r: { name: string }) => r.name), term).toEqual([found]);
    }
    // another script's digits, Arabic spelling variants, the Urdu keyboard's letters, the geresh, direction marks and the
    // nukta are not the word either (h146)
    const ws5 = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'scripts')).workspace;
    const names5 = ['كرة القدم ٢٠٢٤', 'مصطفى ۱۲۳', 'سيشن الإمارات', 'פיקאצ׳ו', 'מחיר \u200f₪120', 'ज़िंदा ५००', 'خانۀ کتاب'];
    for (const name of names5) expect((await h.request('POST', cs(`session/?workspace=${ws5}`), { body: { name } })).statusCode).toBe(201);
    for (const [term, found] of [['2024', names5[0]], ['كره', names5[0]], ['مصطفي', names5[1]], ['123', names5[1]], ['سیشن', names5[2]], ["פיקאצ'ו", names5[3]], ['מחיר ₪120', names5[4]], ['जिंदा', names5[5]], ['500', names5[5]], ['خانه', names5[6]]]) {
      const res = (await h.request('GET', cs(`session/?workspace=${ws5}&search=${encodeURIComponent(term!)}`))).json();
      expect(res.results.map((r: { name: string }) => r.name), term).toEqual([found]);
    }
    // the Latin letters whose stroke or ligature no decomposition takes away, and a phone's curly apostrophes and
    // dashes, fold as text search folds them (h152: "strasse" found no "Straße", "boss's" no "Boss’s Orders")
    const ws6 = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'latin')).workspace;
    await h.app.loupe.accounts.addCredits(h.account.account, 10);
    const names6 = ['Straße der Karten 2', 'Łódź break', 'København', 'Cœur Encyclopædia', 'Diyarbakır', 'Boss’s Orders', "Champion's Path", 'Ho‑Oh night'];
    for (const name of names6) expect((await h.request('POST', cs(`session/?workspace=${ws6}`), { body: { name } })).statusCode).toBe(201);
    for (const [term, found] of [['strasse der karten 2', names6[0]], ['STRASSE', names6[0]], ['lodz', names6[1]], ['kobenhavn', names6[2]], ['coeur', names6[3]], ['encyclopaedia', names6[3]], ['diyarbakir', names6[4]], ["boss's", names6[5]], ['boss’s', names6[5]], ['champion’s path', names6[6]], ['ho-oh', names6[7]], ['ho‑oh', names6[7]]]) {
      const res = (await h.request('GET', cs(`session/?workspace=${ws6}&search=${encodeURIComponent(term!)}`))).json();
      expect(res.results.map((r: { name: string }) => r.name), term).toEqual([found]);
    }

    const beyond = await h.request('GET', cs(`session/?${q}&page=9`));
    expect(beyond.statusCode).toBe(200);
    expect(beyond.json()).toMatchObject({ count: 55, next: null, results: [] });
    expect((await h.request('GET', cs(`session/?${q}&page=0`))).statusCode).toBe(400);
    expect((await h.request('GET', cs(`session/?${q}&page=abc`))).statusCode).toBe(400);
    for (const page of ['1e300', '1152921504606846976', '-1', '2.5']) {
      expect((await h.request('GET', cs(`session/?${q}&page=${page}`))).statusCode, page).toBe(400);
      expect((await h.request('GET', cs(`identification/?session=${b1.results[0].id}&page=${page}`))).statusCode, page).toBe(400);
    }
    // empty is "not given" (client libraries send None so); twice is a clear 400; an empty session is required, not "Session  not found"
    const empty = await h.request('GET', cs(`session/?${q}&page=&page_size=`));
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toMatchObject({ count: 55, previous: null });
    const twice = await h.request('GET', cs(`session/?${q}&page=1&page=2`));
    expect(twice.statusCode).toBe(400);
    expect(twice.json().detail).toBe('page is given more than once in the query; give it once.');
    // a parameter no route reads is ignored, sent twice too (h315: `?_=1&_=2` was that 400 where `?_=1` passed)
    for (const url of [cs(`session/?${q}&_=1&_=2`), cs(`session/${b1.results[0].id}/?${q}&zz=1&zz=2`), '/account/v2/request?_=1&_=2']) {
      const res = await h.request('GET', url);
      expect(res.statusCode, `${url} ${res.body.slice(0, 200)}`).toBe(200);
    }
    expect((await h.request('GET', cs(`session/?${q}&workspace=${h.account.workspace}&workspace=${h.account.workspace}`))).statusCode).toBe(400);
    const noSession = await h.request('GET', cs('identification/?session='));
    expect(noSession.statusCode).toBe(400);
    expect(noSession.json().errors[0]).toMatchObject({ field: 'session' });
  });

  describe('accounts and workspaces', () => {
    it('401 without or with a wrong token, in the one error shape', async () => {
      for (const token of [null, 'wrong']) {
        const res = await h.request('GET', cs('session/'), { token });
        expect(res.statusCode).toBe(401);
        expect(typeof res.json().detail).toBe('string');
        expect(res.json().code).toMatch(/^(not_authenticated|invalid_token)$/);
        // RFC 9110: a 401 names the scheme it takes
        expect(res.headers['www-authenticate']).toBe(token === null ? 'Token realm="Loupe"' : 'Token realm="Loupe", error="invalid_token"');
      }
      // a header that came says what it lacks (h272: a bare token was told no credentials were provided)
      for (const [authorization, says] of <[string, string][]>[
        [h.account.token, 'holds no scheme before the token'],
        ['Token', 'names its scheme but no token'],
        [`Basic ${h.account.token}`, 'scheme is not Token'],
        [`Token ${h.account.token} x`, 'more than one word after its scheme'],
        ['  ', 'credentials were not provided'],
      ]) {
        const res = await h.app.inject({ method: 'GET', url: cs('ping/'), headers: { authorization } });
        expect(res.statusCode, authorization).toBe(401);
        expect(res.json(), authorization).toMatchObject({ code: 'not_authenticated', detail: expect.stringContaining(says) });
      }
      const bearerStyle = await h.app.inject({ method: 'GET', url: cs('ping/'), headers: { authorization: `token ${h.account.token}` } });
      expect(bearerStyle.statusCode).toBe(200);
    });

    it('a revoked token stops working at once; a second token works', async () => {
      const acc = await h.newAccount();
      const second = await h.app.loupe.accounts.addToken(acc.account, 'ci');
      expect((await h.request('GET', cs('ping/'), { token: second.token })).statusCode).toBe(200);
      await h.app.loupe.accounts.revokeToken(acc.token);
      expect((await h.request('GET', cs('ping/'), { token: acc.token })).statusCode).toBe(401);
      expect((await h.request('GET', cs('ping/'), { token: second.token })).statusCode).toBe(200);
    });

    it('keeps workspaces apart and never shows another account\'s data', async () => {
      const other = await h.newAccount();
      const mine = await createSession(h, { name: 'mine' });
      const theirs = await createSession(h, { name: 'theirs' }, other.token);
      const ws2 = (await h.app.loupe.accounts.addWorkspace(h.account.account, 'second')).workspace;
      const inWs2 = (await h.request('POST', cs(`session/?workspace=${ws2}`), { body: { name: 'ws2' } })).json().id;

      expect((await h.request('GET', cs(`session/${theirs}/`))).statusCode).toBe(404);
      expect((await h.request('GET', cs(`session/${mine}/`), { token: other.token })).statusCode).toBe(404);
      expect((await h.request('DELETE', cs(`session/${mine}/`), { token: other.token })).statusCode).toBe(404);
      expect((await h.request('GET', cs(`session/${inWs2}/`))).statusCode).toBe(404);
      expect((await h.request('GET', cs(`session/${inWs2}/?workspace=${ws2}`))).statusCode).toBe(200);
      expect((await h.request('GET', cs(`session/${mine}/?workspace=${h.account.workspace}`))).statusCode).toBe(200);
      // Another account's workspace, a made-up one and garbage all look the same: 404.
      for (const ws of [other.workspace, randomUUID(), 'garbage']) {
        const res = await h.request('GET', cs(`session/?workspace=${ws}`));
        expect(res.statusCode, ws).toBe(404);
      }
      const list = (await h.request('GET', cs(`session/?workspace=${ws2}`))).json();
      expect(list.results.map((s: { id: string }) => s.id)).toEqual([inWs2]);
    });

    it('403 when the service is not enabled for the account; enabling it later works', async () => {
      const acc = await h.newAccount(10, []);
      const res = await h.request('POST', cs('session/'), { token: acc.token, body: {} });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('service_not_enabled');
      expect((await h.request('GET', cs('ping/'), { token: acc.token })).statusCode).toBe(403);
      await h.app.loupe.accounts.setServiceState(acc.account, ['cardstream'], true);
      const ping = await h.request('GET', cs('ping/'), { token: acc.token });
      expect(ping.statusCode).toBe(200);
      // and says which of the server's services the account may use (the console asked each with a refused call, h260)
      expect(ping.json().services).toEqual({ cardstream: true, image_matching: false, descriptor: false, identity: false, visual_search: false, text_search: false, requests: false, collectibles: false });
      expect(Object.values((await h.request('GET', cs('ping/'))).json().services).every((v) => v === true)).toBe(true);
      await h.app.loupe.accounts.setServiceState(acc.account, ['cardstream'], false);
      expect((await h.request('GET', cs('ping/'), { token: acc.token })).statusCode).toBe(403);
    });

    it('402 when credits run out; session create costs one credit and a failed create costs nothing', async () => {
      const acc = await h.newAccount(2);
      expect((await h.request('POST', cs('session/'), { token: acc.token, body: {} })).statusCode).toBe(201);
      // Invalid bodies are rejected before charging.
      expect((await h.request('POST', cs('session/'), { token: acc.token, body: { name: 7 } })).statusCode).toBe(400);
      expect((await h.request('POST', cs('session/'), { token: acc.token, body: {} })).statusCode).toBe(201);
      const broke = await h.request('POST', cs('session/'), { token: acc.token, body: {} });
      expect(broke.statusCode).toBe(402);
      expect(broke.json().code).toBe('insufficient_credits');
      expect((await h.request('GET', cs('ping/'), { token: acc.token })).json().credits).toBe(0);
      // Unpriced calls still work at zero credits.
      expect((await h.request('GET', cs('session/'), { token: acc.token })).statusCode).toBe(200);
      await h.app.loupe.accounts.addCredits(acc.account, 1);
      expect((await h.request('POST', cs('session/'), { token: acc.token, body: {} })).statusCode).toBe(201);
    });

    it('never overdraws under concurrent priced calls', async () => {
      const acc = await h.newAccount(5);
      const results = await Promise.all(Array.from({ length: 12 }, () => h.request('POST', cs('session/'), { token: acc.token, body: {} })));
      expect(results.filter((r) => r.statusCode === 201)).toHaveLength(5);
      expect(results.filter((r) => r.statusCode === 402)).toHaveLength(7);
      expect((await h.request('GET', cs('ping/'), { token: acc.token })).json().credits).toBe(0);
    });
  });
});

describe.each(backends)('rate limit (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    // One token per 100 s: the bucket cannot refill between these requests however slow the
    // machine (at 1 per second, four requests spread over a second would all pass).
    h = await startHarness(backend, { rateLimit: { perSecond: 0.01, burst: 3 } });
  });
  afterAll(async () => h?.close());

  it('answers 429 with Retry-After per token once the burst is spent', async () => {
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await h.request('GET', cs('ping/'))).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    const limited = await h.request('GET', cs('ping/'));
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json().code).toBe('rate_limited');
    const other = await h.newAccount();
    expect((await h.request('GET', cs('ping/'), { token: other.token })).statusCode).toBe(200);
  });
});
