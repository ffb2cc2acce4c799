import { Piscina } from 'piscina';
import { assembleBody, parseJsonBody, type ParsedBody, type SplitBody } from './json-body.ts';

/**
 * Parses JSON bodies; those over `offThreadBytes` on a thread of their own. JSON.parse of a
 * 35 MiB batch held the event loop for 1.4 s, and handing the parsed tree back by structured
 * clone still held it for 1.1 s; the thread checks the whole body and hands back each row as
 * text, which the loop parses a few rows at a time (json-body.ts). Any other large body (images
 * inline) comes back whole: its checks cost about 120 ms a 20 MiB image on the loop, its clone
 * 25 ms, and 24 such uploads arriving together held `/health` for 3.9 s (h191). One thread is
 * enough: large bodies already take turns (large-bodies.ts).
 */
export class JsonParser {
  private pool: Piscina | undefined;

  constructor(private readonly offThreadBytes: number) {}

  /** Bodies parsed on the thread so far (what the tests can see of where a body went). */
  onThread = 0;

  /**
   * `batch`: the body is a batch of rows, handed back row by row. A body parsed on the thread is moved there, not
   * copied, where it owns its memory (Fastify's copy of what arrived): `raw` is then empty for the caller.
   */
  async parse(raw: Buffer, batch: boolean): Promise<ParsedBody> {
    if (raw.length <= this.offThreadBytes) return parseJsonBody(raw);
    this.pool ??= new Piscina({ filename: new URL('./json-parse-entry.js', import.meta.url).href, minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
    this.onThread++;
    // a copy of 44 MB held the event loop for 120–290 ms (h286); a view into memory shared with others (Node's pool of
    // small buffers) is copied, as moving it would empty theirs
    const sent = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength && raw.buffer instanceof ArrayBuffer ? Piscina.move(raw) : raw;
    if (!batch) return (await this.pool.run(sent, { name: 'whole' })) as ParsedBody;
    const split = (await this.pool.run(sent)) as SplitBody;
    if ('error' in split) return split;
    return { value: await assembleBody(split, 256 * 1024) };
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}
