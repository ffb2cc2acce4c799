import { Piscina } from 'piscina';
import { assembleBody, parseJsonBody, type ParsedBody, type SplitBody } from './json-body.ts';

/**
 * Parses JSON bodies; those over `offThreadBytes` on a thread of their own. JSON.parse of a
 * 35 MiB batch held the event loop for 1.4 s, and handing the parsed tree back by structured
 * clone still held it for 1.1 s; the thread checks the whole body and hands back each row as
 * text, which the loop parses a few rows at a time (json-body.ts). One thread is enough: large
 * bodies already take turns (large-bodies.ts).
 */
export class JsonParser {
  private pool: Piscina | undefined;

  constructor(private readonly offThreadBytes: number) {}

  /** `batch`: the body is a batch of rows (the only bodies worth the trip to the thread). */
  async parse(raw: Buffer, batch: boolean): Promise<ParsedBody> {
    if (!batch || raw.length <= this.offThreadBytes) return parseJsonBody(raw);
    this.pool ??= new Piscina({ filename: new URL('./json-parse-entry.js', import.meta.url).href, minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
    const split = (await this.pool.run(raw)) as SplitBody;
    if ('error' in split) return split;
    return { value: await assembleBody(split, 256 * 1024) };
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }
}
