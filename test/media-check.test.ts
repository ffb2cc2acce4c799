import { seededRandom } from '../src/util/seeded-random.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createSession, cs, startHarness, type Harness } from './helpers/harness.ts';
import { loupeInProcess as inProcess } from './helpers/cli.ts';
import type { Store } from '../src/store/database.ts';
import { mediaReferences, stillNamed, type MediaReference } from '../src/store/media-references.ts';

/** Bytes that look random, the same every run. */
const noise = (n: number, seed: number) => {
  const next = seededRandom(seed);
  return Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
};

/** `loupe media check`: media files deleted, emptied or damaged behind the server, found with the rows naming them (h96). */
describe.each(backends)('loupe media check (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(() => h?.close());
  const check = async (...args: string[]) => {
    const r = await inProcess({ ...process.env, LOUPE_DATA_DIR: h.dataDir, DATABASE_URL: h.config.databaseUrl ?? '' }, ['media', 'check', ...args]);
    const answer = JSON.parse(r.stdout) as { ok: boolean };
    // exit 1 when it finds a problem, so cron tells a failed check without reading the answer (h109)
    expect(r.code, r.stderr).toBe(answer.ok ? 0 : 1);
    return answer as { ok: boolean; checked: number; missing: number; empty: number; damaged: number; unnamed_files: number; unnamed: string[]; problems: Array<{ key: string; problem: string; what: string; event_id?: string; session?: string }> };
  };
  const fileOf = (key: string) => path.join(h.dataDir, 'media', key.slice(0, 2), key);

  it('lists every missing, empty or damaged file with its session row, and counts files no row names', async () => {
    const sid = await createSession(h);
    const events = ['gone', 'emptied', 'cut', 'garbage', 'fine', 'trailer'];
    expect((await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: events.map((event_id) => ({ event_id, name: 'Pikachu' })) } })).statusCode).toBe(200);
    for (const [i, event_id] of events.entries()) {
      // noise: a JPEG of some size, with bytes to damage inside it
      const raw = Buffer.from(Array.from({ length: 320 * 440 * 3 }, (_, k) => (k * 7919 + i * 104729) % 251));
      const made = await sharp(raw, { raw: { width: 320, height: 440, channels: 3 } }).jpeg().toBuffer();
      // a phone's trailer after the image's end (a motion photo's video, a maker's notes), which the server keeps as sent
      const jpeg = event_id === 'trailer' ? Buffer.concat([made, Buffer.from('MotionPhoto_Data'), noise(4096, 7)]) : made;
      expect((await h.request('POST', cs(`session/${sid}/images/`), { body: { event_id, image: jpeg.toString('base64') } })).statusCode).toBe(200);
    }
    expect(await check()).toMatchObject({ ok: true, checked: 12, missing: 0, empty: 0, damaged: 0, unnamed_files: 0 });
    const rows = (await h.request('GET', cs(`identification/?session=${sid}`))).json().results as Array<{ event_id: string; image: string }>;
    const keyOf = (event_id: string) => /\/media\/([0-9a-f]{32}\.(?:jpg|png|webp))/.exec(rows.find((r) => r.event_id === event_id)!.image)![1]!;
    await fs.rm(fileOf(keyOf('gone')));
    await fs.writeFile(fileOf(keyOf('emptied')), '');
    const cut = await fs.readFile(fileOf(keyOf('cut')));
    await fs.writeFile(fileOf(keyOf('cut')), cut.subarray(0, cut.length >> 1));
    await fs.writeFile(fileOf(keyOf('garbage')), Buffer.alloc(4000, 0x5a));
    // a file put in the folder by hand, named by no row
    const stray = `${'ab'.repeat(16)}.jpg`;
    await fs.mkdir(path.dirname(fileOf(stray)), { recursive: true });
    await fs.writeFile(fileOf(stray), cut);
    // and one of another name, which no key is (h109: only key-named files were counted); a write's temporary part is not
    await fs.writeFile(path.join(h.dataDir, 'media', 'notes.txt'), 'copied here by hand');
    await fs.writeFile(`${fileOf(stray)}.123.tmp`, 'part');
    // an emptied file is not served as an image (200 with no bytes before)
    const emptied = rows.find((r) => r.event_id === 'emptied')!.image;
    expect((await h.request('GET', emptied.slice(emptied.indexOf('/media/')), { token: null })).statusCode).toBe(404);
    const found = await check();
    expect(found).toMatchObject({ ok: false, checked: 12, missing: 1, empty: 1, damaged: 2, unnamed_files: 2 });
    const byEvent = Object.fromEntries(found.problems.filter((p) => p.what === 'session image').map((p) => [p.event_id, p.problem]));
    expect(byEvent).toEqual({ gone: 'missing', emptied: 'empty', cut: 'cut_short', garbage: 'not_an_image' });
    expect(found.problems.every((p) => p.session === sid)).toBe(true);
    expect(found.unnamed).toEqual([stray, 'notes.txt']);
    // a write's temporary part is no problem, but said (h163: a check right after a crash said nothing of one)
    expect(found).toMatchObject({ unfinished_writes: 1, unfinished: [`ab/${stray}.123.tmp`] });
    // sent again, a row's image is whole again
    const again = await sharp({ create: { width: 320, height: 440, channels: 3, background: '#38c' } }).jpeg().toBuffer();
    expect((await h.request('POST', cs(`session/${sid}/images/`), { body: { event_id: 'gone', image: again.toString('base64') } })).statusCode).toBe(200);
    expect((await check()).missing).toBe(0);
    // random bytes written inside a JPEG (a bad sector, a stray write) break its structure: found without decoding
    const fine = await fs.readFile(fileOf(keyOf('fine')));
    // seeded: bytes drawn at random now and then left the structure whole by chance (a CI run found 2 damaged, not 3)
    noise(fine.length >> 2, 42).copy(fine, fine.length >> 2);
    await fs.writeFile(fileOf(keyOf('fine')), fine);
    expect((await check()).damaged).toBe(3);
    // a Huffman table's counts zeroed keep every segment's length: only reading it whole (--decode) finds that
    const trailer = await fs.readFile(fileOf(keyOf('trailer')));
    const table = trailer.indexOf(Buffer.from([0xff, 0xc4]));
    trailer.fill(0, table + 5, table + 21);
    await fs.writeFile(fileOf(keyOf('trailer')), trailer);
    expect((await check()).damaged).toBe(3);
    const decoded = await check('--decode');
    expect(decoded.damaged).toBe(4);
    expect(decoded.problems.find((p) => p.event_id === 'trailer' && p.what === 'session image')?.problem).toBe('undecodable');
  }, 60_000);

  it('asks whether a row still names its file, so a session deleted during a check is no missing file (h252)', async () => {
    const sid = await createSession(h);
    expect((await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: [{ event_id: 'e', name: 'Pikachu' }] } })).statusCode).toBe(200);
    const jpeg = await sharp({ create: { width: 320, height: 440, channels: 3, background: '#c83' } }).jpeg().toBuffer();
    expect((await h.request('POST', cs(`session/${sid}/images/`), { body: { event_id: 'e', image: jpeg.toString('base64') } })).statusCode).toBe(200);
    const store = (h.app.loupe as unknown as { store: Store }).store;
    const refs: MediaReference[] = [];
    for await (const ref of mediaReferences(store)) if (ref.session === sid) refs.push(ref);
    expect(refs.map((r) => r.what).sort()).toEqual(['session image', 'session thumbnail']);
    for (const ref of refs) expect(await stillNamed(store, ref)).toBe(true);
    expect((await h.request('DELETE', cs(`session/${sid}/`))).statusCode).toBe(204);
    for (const ref of refs) expect(await stillNamed(store, ref)).toBe(false);
  });
});
