import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccountStore } from '../../store/account-store.ts';
import { CollectionStore } from '../../store/collection-store.ts';
import { openStore } from '../../store/database.ts';
import { TOKENS_VERSION, type Observed } from '../../text-search/seen-tokens.ts';
import type { VisionService } from '../vision-service.ts';
import { parseQuery } from '../../text-search/query.ts';
import { ownWordCodes, ownWordsName } from './own-words.ts';
import { SeenBackfill } from './seen-backfill.ts';

describe('the seen backfill and an update of the record while its image is looked at', () => {
  it('writes the row at this version with the words the record has now, as colour words read them (own-words.ts)', async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-seen-race-'));
    const store = await openStore({ dataDir });
    try {
      const accountId = randomUUID();
      await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
      const collections = new CollectionStore(store);
      const c = await collections.create({ id: randomUUID(), accountId, type: 'product', name: 'race', productField: null, capacity: 100 });
      // inserted before the image was looked at: a pending row, its words "blue jacket"
      await collections.insert(c.id, [{ recordId: 'r1', data: { _id: 'r1', title: 'blue jacket', _url: 'https://example.com/1.jpg' }, vector: Float32Array.from([1, 0, 0, 0]) }], 'm');
      const observed: Observed = { width: 10, height: 10, parts: ['objects'], objects: [], faces: [], colors: [], ocr: [] };
      // the vision task takes its time; the client updates the title meanwhile (no image: the row keeps its version)
      const vision = {
        each: async () => {
          const [current] = await collections.getByIds(c.id, ['r1']);
          const text = await collections.text.get(store.db, current!.key);
          await collections.update(c.id, 'r1', { ...current!.data, title: 'red jacket' }, undefined, { ...text!, body: 'red jacket xcred', lang: 'en' });
          return [{ ok: { observed } }];
        },
      } as unknown as VisionService;
      // first pass writes missing rows (none), then looks at the pending image
      await new SeenBackfill(collections, vision, ['objects'], () => {}, async () => undefined).pass();
      const [now] = await collections.getByIds(c.id, ['r1']);
      const row = await collections.text.get(store.db, now!.key);
      expect(row!.seenVersion).toBe(TOKENS_VERSION);
      const q = parseQuery('blue');
      if (!q.ok) throw new Error('blue');
      const codes = q.query.codes.filter((x) => x.weight === 1 && /^x[ck]/.test(x.code)).map((x) => x.code);
      // reading the record says its own words do not name blue; the stored body must say the same
      expect(ownWordCodes(now!.data, null).some((w) => codes.includes(w))).toBe(false);
      expect(ownWordsName(now!.data, null, codes, { body: row!.body, version: row!.seenVersion })).toBe(false);
    } finally {
      await store.close();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });
});
