import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caltechPhotos, photoBase64 } from './helpers/photos.ts';
import { loupeCli, randomPort, startServerProcess } from './helpers/processes.ts';

const images = caltechPhotos().map(photoBase64);

describe('collections survive kill -9 (embedded backend)', () => {
  let dataDir: string;
  let token: string;
  let collection: string;
  const port = randomPort();
  const env = () => ({ ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', LOUPE_VISION_THREADS: '2' });
  const base = `http://127.0.0.1:${port}/similarity/custom/v2`;

  beforeAll(async () => {
    dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-crash-'));
    const account = await loupeCli(env(), 'account', 'create', '--name', 'crash', '--credits', '100000');
    token = account.token!;
    collection = (await loupeCli(env(), 'collection', 'create', '--account', account.account!, '--type', 'custom', '--name', 'c')).collection_id!;
  });
  afterAll(async () => fsp.rm(dataDir, { recursive: true, force: true }));

  it('every acknowledged insert is found after a SIGKILL mid-insert and a restart', async () => {
    const headers = { authorization: `Token ${token}`, 'content-type': 'application/json', 'collection-id': collection };
    let server = await startServerProcess(env(), port);
    const acknowledged: string[] = [];
    const refused: number[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const records = [0, 1].map((j) => ({ _id: `w${w}-${i}-${j}`, _base64: images[(w * 7 + i * 2 + j) % images.length] }));
        let res: Response;
        try {
          res = await fetch(`${base}/insert`, { method: 'POST', headers, body: JSON.stringify({ records }) });
        } catch {
          return; // the server is gone
        }
        // a refusal under load (503, 429) is waited out and sent again: it ended the writer, as a gone server does, and
        // the test waited out its whole timeout for acknowledgements that never came (h222)
        if (!res.ok) {
          refused.push(res.status);
          await res.body?.cancel();
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        let body: { answer_records: { _id: string }[] };
        try {
          body = (await res.json()) as typeof body;
        } catch {
          return; // the server went while it answered
        }
        acknowledged.push(...body.answer_records.map((r) => r._id));
      }
    };
    const writers = [writer(0), writer(1), writer(2)];
    try {
      // Enough inserts that some land after the last index checkpoint (there is none before 30 s).
      const until = Date.now() + 90_000;
      while (acknowledged.length < 24 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(acknowledged.length, `answers other than 200: ${refused.slice(0, 10).join(', ')}`).toBeGreaterThanOrEqual(24);
    } finally {
      server.child.kill('SIGKILL');
      stop = true;
      await server.exited;
      await Promise.all(writers);
    }

    server = await startServerProcess(env(), port);
    try {
      const count = (await (await fetch(`${base}/getRecordCount`, { method: 'POST', headers, body: '{}' })).json()) as { count: number };
      expect(count.count).toBeGreaterThanOrEqual(acknowledged.length);
      for (const id of acknowledged) {
        const res = await fetch(`${base}/visualKNN`, { method: 'POST', headers, body: JSON.stringify({ query_record: { _id: id }, k: 3 }) });
        const body = (await res.json()) as { answer_records: { _id: string }[]; answer_distances: number[] };
        expect(body.answer_records.map((r) => r._id), id).toContain(id);
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 360_000);
});
