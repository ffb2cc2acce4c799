import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyClipPack, type TinyClipOptions } from '../../../test/helpers/tiny-clip.ts';
import { activatePack, activePack, deactivatePack, installPack, listPacks, ModelPackError, modelsDir, removePack, validatePack } from './clip-pack.ts';

describe('CLIP model packs', () => {
  let scratch: string;
  let n = 0;
  const pack = (options: TinyClipOptions = {}, folder = `pack-${++n}`) => writeTinyClipPack(path.join(scratch, 'src', folder), options);
  const freshDataDir = () => fs.mkdtemp(path.join(scratch, 'data-'));

  beforeAll(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-clip-pack-'));
  });
  afterAll(async () => {
    await fs.rm(scratch, { recursive: true, force: true });
  });

  it('installs the Hugging Face layout, flattened, with a manifest, and activates it', async () => {
    const dataDir = await freshDataDir();
    const src = await pack({}, 'Tiny CLIP');
    const installed = await installPack(src, dataDir);
    expect(installed).toMatchObject({
      name: 'tiny-clip',
      family: 'clip',
      source_model: 'loupe/tiny-clip',
      dimension: 8,
      active: true,
      dir: path.join(modelsDir(dataDir), 'tiny-clip'),
      image: { resize: 'shortest_edge', size: 32, crop: 32, mean: [0.48145466, 0.4578275, 0.40821073], std: [0.26862954, 0.26130258, 0.27577711] },
      text: { context_length: 77, id_type: 'int64', attention_mask: true },
    });
    expect(installed.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(Date.parse(installed.installed_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await fs.readdir(installed.dir)).sort()).toEqual(['config.json', 'pack.json', 'preprocessor_config.json', 'text_model.onnx', 'tokenizer.json', 'vision_model.onnx']);
    const vision = await fs.readFile(path.join(src, 'onnx/vision_model.onnx'));
    expect(installed.files.vision).toEqual({ path: 'vision_model.onnx', sha256: createHash('sha256').update(vision).digest('hex'), bytes: vision.length });
    expect((await activePack(dataDir))?.name).toBe('tiny-clip');
    expect((await fs.readdir(modelsDir(dataDir))).sort()).toEqual(['active.json', 'tiny-clip']);
  });

  it('accepts the flat layout and quantized file names; lists, activates, deactivates and removes', async () => {
    const dataDir = await freshDataDir();
    await installPack(await pack(), dataDir, { name: 'first' });
    const second = await installPack(await pack({ layout: 'flat', quantizedNames: true, dim: 4, attentionMask: false }), dataDir, { name: 'second', activate: false });
    expect(second).toMatchObject({ active: false, dimension: 4, text: { attention_mask: false }, files: { vision: { path: 'vision_model_quantized.onnx' } } });

    let listed = await listPacks(dataDir);
    expect(listed.active).toBe('first');
    expect(listed.packs.map((p) => [p.name, p.active])).toEqual([
      ['first', true],
      ['second', false],
    ]);

    expect(await activatePack(dataDir, 'second')).toEqual({ active: 'second' });
    expect((await activePack(dataDir))?.dimension).toBe(4);
    await expect(activatePack(dataDir, 'third')).rejects.toThrow('no model pack named "third" is installed');

    expect(await removePack(dataDir, 'first')).toEqual({ removed: 'first', was_active: false });
    expect(await removePack(dataDir, 'second')).toEqual({ removed: 'second', was_active: true });
    listed = await listPacks(dataDir);
    expect(listed).toEqual({ active: null, packs: [] });
    expect(await activePack(dataDir)).toBeUndefined();
    await expect(removePack(dataDir, 'second')).rejects.toThrow('no model pack named "second" is installed');

    await installPack(await pack(), dataDir, { name: 'again' });
    expect(await deactivatePack(dataDir)).toEqual({ active: null });
    expect(await activePack(dataDir)).toBeUndefined();
  });

  it('makes a data folder it has to make readable by its owner only, as the server does', async () => {
    const dataDir = path.join(await freshDataDir(), 'new', 'data');
    await installPack(await pack(), dataDir, { name: 'private' });
    for (const dir of [path.dirname(dataDir), dataDir, modelsDir(dataDir)]) expect((await fs.stat(dir)).mode & 0o777, dir).toBe(0o700);
  });

  it('refuses a second pack under a taken name, and bad names', async () => {
    const dataDir = await freshDataDir();
    const src = await pack();
    await installPack(src, dataDir, { name: 'clip' });
    await expect(installPack(src, dataDir, { name: 'clip' })).rejects.toThrow('a model pack named "clip" is already installed');
    await expect(installPack(src, dataDir, { name: '../escape' })).rejects.toThrow(/pack name "..\/escape" must be/);
    await expect(installPack(src, dataDir, { name: 'active.json' })).rejects.toThrow(/not ending in .json/);
  });

  it('says when the active pack is gone', async () => {
    const dataDir = await freshDataDir();
    const installed = await installPack(await pack(), dataDir, { name: 'gone' });
    await fs.rm(installed.dir, { recursive: true });
    await expect(activePack(dataDir)).rejects.toThrow(/active model pack "gone" cannot be read/);
    expect(await removePack(dataDir, 'gone')).toEqual({ removed: 'gone', was_active: true });
    expect(await activePack(dataDir)).toBeUndefined();
  });

  describe('refuses broken packs with a clear message and leaves nothing behind', () => {
    const broken: [string, (dir: string) => Promise<unknown>, RegExp][] = [
      ['a missing tokenizer', (dir) => fs.rm(path.join(dir, 'tokenizer.json')), /has no tokenizer\.json/],
      ['a missing text tower', (dir) => fs.rm(path.join(dir, 'onnx/text_model.onnx')), /has no text tower: expected onnx\/text_model\.onnx/],
      ['a combined model only', async (dir) => {
        await fs.rename(path.join(dir, 'onnx/vision_model.onnx'), path.join(dir, 'onnx/model.onnx'));
      }, /a combined model\.onnx is not supported/],
      ['a missing preprocessor config', (dir) => fs.rm(path.join(dir, 'preprocessor_config.json')), /has no preprocessor_config\.json/],
      ['a file that is not ONNX', (dir) => fs.writeFile(path.join(dir, 'onnx/text_model.onnx'), 'not a model'), /text_model\.onnx is not a loadable ONNX model/],
      ['a tokenizer that is not JSON', (dir) => fs.writeFile(path.join(dir, 'tokenizer.json'), '{'), /cannot read tokenizer/],
      ['a preprocessor without mean', async (dir) => {
        const file = path.join(dir, 'preprocessor_config.json');
        const pre = JSON.parse(await fs.readFile(file, 'utf8'));
        delete pre.image_mean;
        await fs.writeFile(file, JSON.stringify(pre));
      }, /image_mean must be three numbers/],
    ];
    it.each(broken)('%s', async (_what, breakIt, message) => {
      const dataDir = await freshDataDir();
      const src = await pack();
      await breakIt(src);
      const err = await installPack(src, dataDir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelPackError);
      expect((err as Error).message).toMatch(message);
      expect(await fs.readdir(modelsDir(dataDir)).catch(() => [])).toEqual([]);
    });

    it('wrong input names', async () => {
      await expect(validatePack(await pack({ visionInput: 'pixels' }))).rejects.toThrow('image tower has inputs pixels; a CLIP image tower takes pixel_values');
    });

    it('towers of different dimensions', async () => {
      await expect(validatePack(await pack({ dim: 8, textDim: 6 }))).rejects.toThrow('the towers do not match: image embeddings have 8 dimensions, text embeddings 6');
    });

    it('a folder that does not exist', async () => {
      await expect(installPack(path.join(scratch, 'nowhere'), await freshDataDir())).rejects.toThrow(/nowhere is not a folder/);
    });
  });
});
