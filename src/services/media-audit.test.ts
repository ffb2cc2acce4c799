import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaStore } from '../media/media-store.ts';
import type { MediaReference } from '../store/media-references.ts';
import { auditMedia } from './media-audit.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function* listed(refs: MediaReference[]): AsyncGenerator<MediaReference> {
  yield* refs;
}

describe('auditMedia beside a running server (h252: 782 files of sessions deleted during a check were "missing")', () => {
  it('counts a missing file only where its row still names it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-audit-'));
    dirs.push(dir);
    const media = new MediaStore(dir);
    const refs: MediaReference[] = [
      { key: `${'a'.repeat(32)}.jpg`, what: 'session image', session: 's', row: 'deleted-since' },
      { key: `${'b'.repeat(32)}.jpg`, what: 'session image', session: 's', row: 'still-there' },
    ];
    const report = await auditMedia(listed(refs), media, { stillNamed: async (ref) => ref.row === 'still-there' });
    expect(report).toMatchObject({ ok: false, missing: 1 });
    expect(report.problems.map((p) => p.row)).toEqual(['still-there']);
  });

  it('leaves out of the files no row names those written since the check began', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-audit-'));
    dirs.push(dir);
    const media = new MediaStore(dir);
    const key = await media.put(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).jpeg().toBuffer(), 'jpg');
    // a check begun after the write counts it; one begun before, while it was written, does not
    expect((await auditMedia(listed([]), media, { since: Date.now() + 1000 })).unnamed).toEqual([key]);
    expect((await auditMedia(listed([]), media, { since: Date.now() - 60_000 })).unnamed_files).toBe(0);
  });
});
