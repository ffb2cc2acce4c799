import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { OcrReader } from '../models/ocr-reader.ts';
import { readShared, sharingReader } from './shared-reads.ts';
import type { ShareRequest } from './vision-tasks.ts';

/** A reader that says who read which picture (by its width), and counts its reads; each read takes `ms`. */
function fakeReader(who: string, ms = 20) {
  const reader = {
    reads: 0,
    read: async (img: { width: number }) => {
      reader.reads++;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return [{ text: `${who}:${img.width}`, prob: 1, polygon: [] as [number, number][] }];
    },
    countText: async () => 0,
    dispose: async () => undefined,
  };
  return reader;
}
const picture = (width: number) => ({ data: new Uint8Array(width * 3), width, height: 1 });

/** The engine's side of a worker's messages, answering offers as `answer` says. */
function engineSide(answer: (r: ShareRequest) => void): MessagePort {
  const { port1, port2 } = new MessageChannel();
  port2.on('message', (r: ShareRequest) => answer(r));
  open.push(port1, port2);
  return port1;
}
const open: MessagePort[] = [];
afterEach(() => open.splice(0).forEach((p) => p.close()));

describe('sharing a task\'s reads with an idle worker', () => {
  it('reads every picture itself, in order, when no worker is idle (the engine declines)', async () => {
    const own = fakeReader('own');
    const port = engineSide((r) => r.port.close());
    const lines = await sharingReader(own as unknown as OcrReader, port).readAll([picture(10), picture(20), picture(30)]);
    expect(lines.map((l) => l[0]!.text)).toEqual(['own:10', 'own:20', 'own:30']);
    expect(own.reads).toBe(3);
  });

  it('takes the lines of the pictures an idle worker read, and reads only the first itself', async () => {
    const own = fakeReader('own');
    const idle = fakeReader('idle');
    const port = engineSide(async (r) => {
      const lines = await readShared({ kind: 'ocr-share', ...r.loupeShare }, async () => idle as unknown as OcrReader);
      r.port.postMessage({ lines });
      r.port.close();
    });
    const lines = await sharingReader(own as unknown as OcrReader, port).readAll([picture(10), picture(20)]);
    expect(lines.map((l) => l[0]!.text)).toEqual(['own:10', 'idle:20']);
    expect([own.reads, idle.reads]).toEqual([1, 1]);
  });

  it('takes a picture back that no worker started before its own read ended; the late worker then reads nothing', async () => {
    const own = fakeReader('own');
    const idle = fakeReader('idle');
    let late: Promise<unknown> | undefined;
    const port = engineSide((r) => {
      late = new Promise((resolve) => setTimeout(resolve, 100)).then(() => readShared({ kind: 'ocr-share', ...r.loupeShare }, async () => idle as unknown as OcrReader));
    });
    const lines = await sharingReader(own as unknown as OcrReader, port).readAll([picture(10), picture(20)]);
    expect(lines.map((l) => l[0]!.text)).toEqual(['own:10', 'own:20']);
    expect(await late).toBeNull();
    expect(idle.reads).toBe(0);
  });

  it('reads a picture itself when the worker that took it failed', async () => {
    const own = fakeReader('own');
    const port = engineSide((r) => {
      Atomics.store(new Int32Array(r.loupeShare.claim), 0, 1);
      r.port.postMessage({ error: 'worker exited' });
      r.port.close();
    });
    const lines = await sharingReader(own as unknown as OcrReader, port).readAll([picture(10), picture(20)]);
    expect(lines.map((l) => l[0]!.text)).toEqual(['own:10', 'own:20']);
  });

  it('looks for the lexicon\'s words in the first picture only, read here or not, and offers no lexicon to a worker', async () => {
    const lexicon = { words: [], groups: [], wants: () => false, accepts: () => false };
    const seen: string[] = [];
    const own = {
      read: async (img: { width: number }, options?: { lexicon?: unknown; language?: string }) => {
        seen.push(`${img.width}:${options?.lexicon === lexicon ? 'lexicon' : 'none'}:${options?.language ?? ''}`);
        // long enough for the offer to reach the engine
        await new Promise((resolve) => setTimeout(resolve, 20));
        return [];
      },
      countText: async () => 0,
      dispose: async () => undefined,
    };
    // outside a worker
    await sharingReader(own as unknown as OcrReader, null).readAll([picture(1), picture(2), picture(3)], { lexicon, language: 'en' });
    expect(seen.splice(0)).toEqual(['1:lexicon:en', '2:none:en', '3:none:en']);
    // offered to a worker that declines: read here, still without it
    const offered: ShareRequest['loupeShare'][] = [];
    const port = engineSide((r) => (offered.push(r.loupeShare), r.port.close()));
    await sharingReader(own as unknown as OcrReader, port).readAll([picture(1), picture(2)], { lexicon, language: 'en' });
    expect(seen).toEqual(['1:lexicon:en', '2:none:en']);
    expect(offered.map((o) => [o.width, o.language, 'lexicon' in o])).toEqual([[2, 'en', false]]);
  });

  it('reads one after the other outside a worker', async () => {
    const own = fakeReader('own');
    expect((await sharingReader(own as unknown as OcrReader, null).readAll([picture(1), picture(2)])).flat().map((l) => l.text)).toEqual(['own:1', 'own:2']);
  });
});
