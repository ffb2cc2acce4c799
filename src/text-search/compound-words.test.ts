import { describe, expect, it } from 'vitest';
import { splitCompound } from './compound-words.ts';

describe('splitCompound', () => {
  const knows = (...words: string[]) => async (w: string) => words.includes(w);
  it('reads a German compound as two words both known, linking letters dropped (h177: "Holztisch" found nothing)', async () => {
    expect(await splitCompound('holztisch', knows('holz', 'tisch'))).toEqual(['holz', 'tisch']);
    expect(await splitCompound('arbeitstisch', knows('arbeit', 'tisch'))).toEqual(['arbeit', 'tisch']);
    expect(await splitCompound('wanduhr', knows('wand', 'uhr'))).toEqual(['wand', 'uhr']);
  });
  it('leaves a word whole when a part is unknown, or too short to split', async () => {
    expect(await splitCompound('holztisch', knows('holz'))).toBeNull();
    expect(await splitCompound('tische', knows('tis', 'che'))).toBeNull();
    expect(await splitCompound('holz2tisch', knows('holz2', 'tisch'))).toBeNull();
  });
});
