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

  it("reads the collector number a manifest keeps one level down (the MTG dataset's gatherer_metadata, h183)", async () => {
    const sub = path.join(dir, 'mtg');
    fs.mkdirSync(path.join(sub, 'cards'), { recursive: true });
    fs.writeFileSync(path.join(sub, 'cards', '571553_elf.jpeg'), 'x');
    const labels = { card_name: 'Glowspore Shaman', multiverse_id: '571553', gatherer_metadata: { collector_number: '175', set_code: '2X2', name: 'Other' } };
    fs.writeFileSync(path.join(sub, 'manifest.json'), JSON.stringify({ files: [{ file: 'cards/571553_elf.jpeg', labels }] }));
    const [ref] = await referenceFiles(path.join(sub, 'cards'));
    // the top level's name wins over the nested one's
    expect(ref).toMatchObject({ number: '175', setCode: '2X2', cardName: 'Glowspore Shaman' });
  });
});
