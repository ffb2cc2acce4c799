import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { referenceFiles } from './reference-images.ts';

describe('reference files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-refs-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads a collector number from a file name that leads with it, or is it alone (42.jpg), and a name after it', async () => {
    for (const f of ['42.jpg', '007_pikachu.png', 'elsa spirit.jpg', '2022topps.jpg']) fs.writeFileSync(path.join(dir, f), 'x');
    const byName = new Map((await referenceFiles(dir)).map((r) => [r.name, r]));
    expect(byName.get('42.jpg')).toMatchObject({ number: '42', cardName: null });
    expect(byName.get('007_pikachu.png')).toMatchObject({ number: '007', cardName: 'pikachu' });
    expect(byName.get('elsa spirit.jpg')).toMatchObject({ number: null, cardName: 'elsa spirit' });
    // digits run into a word are no number
    expect(byName.get('2022topps.jpg')).toMatchObject({ number: null });
  });
});
