import { describe, expect, it } from 'vitest';
import { BlockedWork } from './blocked-work.ts';

describe('BlockedWork', () => {
  it('says the reason once while it lasts, again when it changes or comes back, and never for a failing check', async () => {
    const said: string[] = [];
    const reasons: Array<string | undefined | Error> = ['upgraded', 'upgraded', undefined, 'upgraded', 'other', new Error('db down')];
    let i = 0;
    const gate = new BlockedWork(async () => {
      const r = reasons[i++];
      if (r instanceof Error) throw r;
      return r;
    }, (_level, message) => said.push(message), 'no job is taken');
    const got = [];
    for (let k = 0; k < reasons.length; k++) got.push(await gate.reason());
    expect(got).toEqual(['upgraded', 'upgraded', undefined, 'upgraded', 'other', undefined]);
    expect(said).toEqual(['no job is taken: upgraded', 'no job is taken: upgraded', 'no job is taken: other']);
  });

  it('blocks nothing without a check', async () => {
    expect(await new BlockedWork(undefined, undefined, 'x').reason()).toBeUndefined();
  });
});
