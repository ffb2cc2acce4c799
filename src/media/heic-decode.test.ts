import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { photoPath } from '../../test/helpers/photos.ts';
import { decodeHeic, stopDecoder } from './heic-decode.ts';

describe('HEIC decoding', () => {
  afterAll(() => stopDecoder());

  it('decodes a photo sent while the idle decoder thread is ending, on the next thread (it was refused as corrupt)', async () => {
    const bytes = fs.readFileSync(photoPath('cards/single-1730719045.heic'));
    const first = await decodeHeic(bytes);
    expect(first.width).toBeGreaterThan(0);
    // what the idle timer does: the thread is told to end, and the next photo arrives before its exit
    const ending = stopDecoder();
    const next = await decodeHeic(Buffer.from(bytes));
    expect([next.width, next.height]).toEqual([first.width, first.height]);
    await ending;
  }, 60_000);

  it('refuses the photos still waiting when the decoder is stopped, and decodes the next one after', async () => {
    const bytes = fs.readFileSync(photoPath('cards/single-1730719045.heic'));
    const waiting = Array.from({ length: 3 }, () => decodeHeic(Buffer.from(bytes)).then(() => 'decoded', (e: Error) => e.message));
    await stopDecoder();
    // none goes on in a thread started after the stop (the queue started a new one for them)
    expect(await Promise.all(waiting)).toEqual(['the HEIC decoder stopped', 'the HEIC decoder stopped', 'the HEIC decoder stopped']);
    expect((await decodeHeic(Buffer.from(bytes))).width).toBeGreaterThan(0);
  }, 60_000);

  it('decodes a burst one after another, each the same photo', async () => {
    const bytes = fs.readFileSync(photoPath('cards/single-1730719045.heic'));
    const all = await Promise.all(Array.from({ length: 4 }, () => decodeHeic(Buffer.from(bytes))));
    expect(new Set(all.map((i) => `${i.width}x${i.height}:${i.data.length}`)).size).toBe(1);
  }, 60_000);
});
