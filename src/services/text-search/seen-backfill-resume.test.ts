import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { AccountStore } from '../../store/account-store.ts';
import { CollectionStore } from '../../store/collection-store.ts';
import { openStore } from '../../store/database.ts';
import { TOKENS_VERSION } from '../../text-search/seen-tokens.ts';
import type { VisionService } from '../vision-service.ts';
import { maxSeenAttempts, SeenBackfill } from './seen-backfill.ts';

describe('the re-tokenising pass over rows an older release wrote', () => {
  it('logs its progress as it goes, says a stop is no end, and the next pass takes up the rest, no row twice (h345)', async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-seen-resume-'));
    const store = await openStore({ dataDir });
    try {
      const accountId = randomUUID();
      await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
      const collections = new CollectionStore(store);
      const c = await collections.create({ id: randomUUID(), accountId, type: 'product', name: 'older', productField: null, capacity: 1000 });
      const rows = 250;
      await collections.insert(
        c.id,
        Array.from({ length: rows }, (_, i) => ({
          recordId: `r${i}`,
          data: { _id: `r${i}`, title: `blue jacket ${i}` },
          vector: Float32Array.from([1, i, 0, 0]),
          // as an older release left them: seen, no observation kept, tokenised at version 1
          text: { seen: '', body: 'blue jacket', ocr: '', lang: 'en', colors: [], observed: null, seenVersion: 1, seenState: 'done' as const },
        })),
        'm',
      );
      const said: { message: string; details?: Record<string, unknown> }[] = [];
      const log = (_level: string, message: string, details?: Record<string, unknown>) => said.push({ message, ...(details ? { details } : {}) });
      const vision = {} as VisionService; // re-tokenising reads no image
      const first = new SeenBackfill(collections, vision, [], log, async () => undefined);
      // stopped as a SIGTERM stops it: after some rows, before the rest
      const stopAt = 130;
      const stopping = new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          void sql<{ n: number }>`SELECT count(*) AS n FROM collection_text WHERE seen_version = ${TOKENS_VERSION}`.execute(store.db).then((r) => {
            if (Number(r.rows[0]!.n) >= stopAt) {
              clearInterval(poll);
              resolve();
            }
          });
        }, 1);
      });
      first.start();
      await stopping;
      await first.stop();
      const firstDone = said.find((s) => s.message.startsWith('text search backfill: stopped'))?.details?.retokenised as number | undefined;
      // a progress line every 100 rows while it re-tokenised (there was none until the pass ended)
      expect(said.filter((s) => s.message === 'text search backfill: progress').map((s) => s.details?.retokenised)).toContain(100);
      expect(said.map((s) => s.message)).not.toContain('text search backfill: done');
      expect(firstDone).toBeGreaterThanOrEqual(stopAt);
      expect(firstDone).toBeLessThan(rows);

      said.length = 0;
      const second = await new SeenBackfill(collections, vision, [], log, async () => undefined).pass();
      expect(second.retokenised).toBe(rows - firstDone!);
      expect(said.at(-1)?.message).toBe('text search backfill: done');
      const versions = await sql<{ v: number; n: number }>`SELECT seen_version AS v, count(*) AS n FROM collection_text GROUP BY seen_version`.execute(store.db);
      expect(versions.rows.map((r) => [Number(r.v), Number(r.n)])).toEqual([[TOKENS_VERSION, rows]]);
    } finally {
      await store.close();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('gives up on an image the server stopped while looking at every time, saying so, rather than counting it pending for good (h345)', async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-seen-stuck-'));
    const store = await openStore({ dataDir });
    try {
      const accountId = randomUUID();
      await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
      const collections = new CollectionStore(store);
      const c = await collections.create({ id: randomUUID(), accountId, type: 'product', name: 'stuck', productField: null, capacity: 10 });
      const text = { seen: '', body: 'blue jacket', ocr: '', lang: 'en', colors: [], observed: null, seenVersion: TOKENS_VERSION, seenState: 'pending' as const };
      await collections.insert(c.id, ['stuck', 'fresh'].map((id, i) => ({ recordId: id, data: { _id: id, title: 'blue jacket' }, vector: Float32Array.from([1, i, 0, 0]), text })), 'm');
      // claimed as often as the pass claims a row, each claim ended by the process (a kill mid-look): the row stays pending
      await sql`UPDATE collection_text SET attempts = ${maxSeenAttempts} WHERE key = (SELECT key FROM collection_records WHERE record_id = 'stuck')`.execute(store.db);
      const said: { level: string; message: string }[] = [];
      const log = (level: string, message: string) => said.push({ level, message });
      // base64 records: no image to look at, so the fresh row is no_image and the vision service is never asked
      await new SeenBackfill(collections, {} as VisionService, ['objects'], log, async () => undefined).pass();
      expect(await collections.text.progress(store.db, c.id)).toMatchObject({ pending: 0, failed: 1, no_image: 1 });
      const stuck = await sql<{ seen_state: string; last_error: string }>`SELECT t.seen_state, t.last_error FROM collection_text t JOIN collection_records r ON r.key = t.key WHERE r.record_id = 'stuck'`.execute(store.db);
      expect(stuck.rows[0]).toEqual({ seen_state: 'failed', last_error: expect.stringMatching(/the server stopped each of the 3 times/) });
      expect(said).toContainEqual({ level: 'warn', message: expect.stringMatching(/^text search backfill: images given up on/) });
    } finally {
      await store.close();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });
});
