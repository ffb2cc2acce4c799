import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { workerSessionOptions } from '../engine/onnx-session.ts';
import { ClipTokenizer, defaultContextLength } from './clip-tokenizer.ts';

/**
 * CLIP-family model packs: an ONNX image tower, an ONNX text tower and their tokenizer, in the
 * layout of a public CLIP ONNX export (Xenova/clip-vit-base-patch32 on Hugging Face). Packs live
 * in `<dataDir>/models/<name>/` with a `pack.json` manifest; `<dataDir>/models/active.json` names
 * the pack the descriptor and text search use. See docs/model-packs.md.
 */

export class ModelPackError extends Error {}

export const manifestFile = 'pack.json';
const activeFile = 'active.json';
const namePattern = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export interface PackFile {
  /** Path inside the installed pack folder. */
  path: string;
  sha256: string;
  bytes: number;
}

export interface PackImageSpec {
  /** `shortest_edge`: scale the short side to `size`, then centre-crop `crop`²; `exact`: stretch to `crop`². */
  resize: 'shortest_edge' | 'exact';
  size: number;
  crop: number;
  /** Multiplies 8-bit channel values before normalising (1/255 in every CLIP export). */
  rescale: number;
  mean: [number, number, number];
  std: [number, number, number];
}

export interface PackTextSpec {
  context_length: number;
  /** Element type the tower takes `input_ids` (and `attention_mask`) in. */
  id_type: 'int64' | 'int32';
  attention_mask: boolean;
}

export interface PackManifest {
  format: 1;
  family: 'clip';
  name: string;
  /** `_name_or_path` from config.json when present, e.g. "openai/clip-vit-base-patch32". */
  source_model: string | null;
  dimension: number;
  /** Hash of both towers: equal fingerprints give comparable vectors, whatever the pack is called. */
  fingerprint: string;
  image: PackImageSpec;
  text: PackTextSpec;
  files: { vision: PackFile; text: PackFile; tokenizer: PackFile; preprocessor: PackFile; config: PackFile | null };
  installed_at: string;
}

export interface InstalledPack extends PackManifest {
  dir: string;
  active: boolean;
}

export const modelsDir = (dataDir: string): string => path.join(dataDir, 'models');


/** Opens an ONNX file, naming the file in the error when it is not a loadable model. */
export async function openTower(file: string, label = path.basename(file)): Promise<InferenceSession> {
  try {
    return await InferenceSession.create(file, workerSessionOptions());
  } catch (err) {
    throw new ModelPackError(`${label} is not a loadable ONNX model: ${(err as Error).message}`);
  }
}

// ---- Reading a pack folder as downloaded. ----

const towerCandidates = (tower: 'vision' | 'text') => [`onnx/${tower}_model.onnx`, `${tower}_model.onnx`, `onnx/${tower}_model_quantized.onnx`, `${tower}_model_quantized.onnx`];

interface SourceLayout {
  dir: string;
  vision: string;
  text: string;
  tokenizer: string;
  preprocessor: string;
  config: string | null;
}

const exists = (file: string) =>
  fs.stat(file).then(
    (s) => s.isFile(),
    () => false,
  );

async function firstExisting(dir: string, candidates: string[]): Promise<string | undefined> {
  for (const c of candidates) if (await exists(path.join(dir, c))) return c;
  return undefined;
}

async function locate(dir: string): Promise<SourceLayout> {
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) throw new ModelPackError(`${dir} is not a folder; pass the folder holding the pack (tokenizer.json, onnx/vision_model.onnx, …)`);
  const tower = async (kind: 'vision' | 'text', role: string) => {
    const found = await firstExisting(dir, towerCandidates(kind));
    if (found) return found;
    const combined = (await exists(path.join(dir, 'onnx/model.onnx'))) || (await exists(path.join(dir, 'model.onnx')));
    throw new ModelPackError(
      `${dir} has no ${role}: expected onnx/${kind}_model.onnx or ${kind}_model.onnx (or the *_quantized.onnx variant)` +
        (combined ? '; a combined model.onnx is not supported, download the separate vision_model.onnx and text_model.onnx' : ''),
    );
  };
  const required = async (file: string, what: string) => {
    if (!(await exists(path.join(dir, file)))) throw new ModelPackError(`${dir} has no ${file} (${what})`);
    return file;
  };
  return {
    dir,
    vision: await tower('vision', 'image tower'),
    text: await tower('text', 'text tower'),
    tokenizer: await required('tokenizer.json', 'the tokenizer'),
    preprocessor: await required('preprocessor_config.json', 'image size, mean and std'),
    config: (await exists(path.join(dir, 'config.json'))) ? 'config.json' : null,
  };
}

async function readJson(file: string): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new ModelPackError(`${path.basename(file)} is not readable JSON: ${(err as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ModelPackError(`${path.basename(file)} must hold a JSON object`);
  return value as Record<string, unknown>;
}

const positiveInt = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** Reads `preprocessor_config.json` the way transformers' CLIPImageProcessor does. */
function imageSpec(pre: Record<string, unknown>): PackImageSpec {
  const triple = (key: string): [number, number, number] => {
    const v = pre[key];
    if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new ModelPackError(`preprocessor_config.json ${key} must be three numbers (R, G, B)`);
    }
    if (key === 'image_std' && v.some((x: number) => x <= 0)) throw new ModelPackError('preprocessor_config.json image_std must be positive');
    return v as [number, number, number];
  };
  const square = (key: string): number | undefined => {
    const v = pre[key];
    if (v === undefined || v === null) return undefined;
    const n = positiveInt(v);
    if (n) return n;
    const o = v as { height?: unknown; width?: unknown; shortest_edge?: unknown };
    if (typeof v === 'object' && positiveInt(o.shortest_edge)) return o.shortest_edge as number;
    if (typeof v === 'object' && positiveInt(o.height) && o.height === o.width) return o.height as number;
    throw new ModelPackError(`preprocessor_config.json ${key} must be a size, {"shortest_edge": n} or a square {"height": n, "width": n}; got ${JSON.stringify(v)}`);
  };
  const size = square('size');
  const crop = pre.do_center_crop === false ? undefined : square('crop_size');
  if (!size && !crop) throw new ModelPackError('preprocessor_config.json gives no image size (size or crop_size)');
  const exact = typeof pre.size === 'object' && pre.size !== null && 'height' in pre.size && !crop;
  const rescale = pre.do_rescale === false ? 1 : typeof pre.rescale_factor === 'number' ? pre.rescale_factor : 1 / 255;
  const normalise = pre.do_normalize !== false;
  return {
    resize: exact ? 'exact' : 'shortest_edge',
    size: Math.max(size ?? crop!, crop ?? 0),
    crop: crop ?? size!,
    rescale,
    mean: normalise ? triple('image_mean') : [0, 0, 0],
    std: normalise ? triple('image_std') : [1, 1, 1],
  };
}

function tensorInput(session: InferenceSession, name: string) {
  return session.inputMetadata.find((m) => m.name === name && m.isTensor) as InferenceSession.TensorValueMetadata | undefined;
}

function checkNames(session: InferenceSession, label: string, required: string[], optional: string[], output: string): void {
  const missing = required.filter((n) => !session.inputNames.includes(n));
  const unknown = session.inputNames.filter((n) => !required.includes(n) && !optional.includes(n));
  const expected = [...required, ...optional.map((o) => `optionally ${o}`)].join(', ');
  if (missing.length || unknown.length) throw new ModelPackError(`${label} has inputs ${session.inputNames.join(', ') || '(none)'}; a CLIP ${label} takes ${expected}`);
  if (!session.outputNames.includes(output)) throw new ModelPackError(`${label} has outputs ${session.outputNames.join(', ')}; a CLIP ${label} must output ${output}`);
}

function embeddingSize(tensor: Tensor | undefined, label: string, output: string): number {
  const dims = tensor?.dims ?? [];
  if (tensor?.type !== 'float32' || dims.length !== 2 || dims[0] !== 1 || !(dims[1]! > 0)) {
    throw new ModelPackError(`${label} output ${output} for one input has shape [${dims.join(', ')}] (${tensor?.type}); expected float32 [1, D]`);
  }
  return dims[1]!;
}

/** Id and mask tensors for `input_ids` / `attention_mask` in the tower's element type. */
export function textFeeds(text: PackTextSpec, encoded: { ids: number[]; attentionMask: number[] }): Record<string, Tensor> {
  const tensor = (values: number[]) => (text.id_type === 'int64' ? new Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]) : new Tensor('int32', Int32Array.from(values), [1, values.length]));
  return { input_ids: tensor(encoded.ids), ...(text.attention_mask ? { attention_mask: tensor(encoded.attentionMask) } : {}) };
}

interface Checked {
  dimension: number;
  image: PackImageSpec;
  text: PackTextSpec;
  sourceModel: string | null;
}

/**
 * Opens both towers of a pack folder, checks their interface and runs each once to learn the
 * embedding size, which must be the same for both.
 */
async function check(layout: SourceLayout): Promise<Checked> {
  const pre = await readJson(path.join(layout.dir, layout.preprocessor));
  const config = layout.config ? await readJson(path.join(layout.dir, layout.config)) : {};
  const image = imageSpec(pre);

  const vision = await openTower(path.join(layout.dir, layout.vision), layout.vision);
  const textTower = await openTower(path.join(layout.dir, layout.text), layout.text).catch(async (err: unknown) => {
    await vision.release();
    throw err;
  });
  try {
    checkNames(vision, 'image tower', ['pixel_values'], [], 'image_embeds');
    checkNames(textTower, 'text tower', ['input_ids'], ['attention_mask'], 'text_embeds');

    const pixels = tensorInput(vision, 'pixel_values');
    if (pixels && pixels.type !== 'float32') throw new ModelPackError(`image tower takes pixel_values as ${pixels.type}; only float32 towers are supported (not the fp16 export)`);
    const [, channels, height, width] = pixels?.shape ?? [];
    if (typeof channels === 'number' && channels !== 3) throw new ModelPackError(`image tower takes ${channels} channels; CLIP takes 3`);
    for (const side of [height, width]) {
      if (typeof side === 'number' && side !== image.crop) throw new ModelPackError(`image tower takes ${height}×${width} pixels but preprocessor_config.json crops to ${image.crop}×${image.crop}`);
    }

    const ids = tensorInput(textTower, 'input_ids');
    const idType = ids?.type ?? 'int64';
    if (idType !== 'int64' && idType !== 'int32') throw new ModelPackError(`text tower takes input_ids as ${idType}; expected int64`);
    const fixedLength = ids?.shape[1];
    const textConfig = (config.text_config ?? {}) as Record<string, unknown>;
    const contextLength = typeof fixedLength === 'number' && fixedLength > 0 ? fixedLength : (positiveInt(textConfig.max_position_embeddings) ?? defaultContextLength);
    const text: PackTextSpec = { context_length: contextLength, id_type: idType, attention_mask: textTower.inputNames.includes('attention_mask') };
    const tokenizer = await ClipTokenizer.load(path.join(layout.dir, layout.tokenizer), { contextLength }).catch((err: Error) => {
      throw new ModelPackError(err.message);
    });

    const run = async (session: InferenceSession, feeds: Record<string, Tensor>, output: string, label: string) => {
      try {
        return (await session.run(feeds, [output]))[output];
      } catch (err) {
        throw new ModelPackError(`${label} failed on a test input: ${(err as Error).message}`);
      }
    };
    const zeros = new Tensor('float32', new Float32Array(3 * image.crop * image.crop), [1, 3, image.crop, image.crop]);
    const imageDim = embeddingSize(await run(vision, { pixel_values: zeros }, 'image_embeds', 'image tower'), 'image tower', 'image_embeds');
    const textDim = embeddingSize(await run(textTower, textFeeds(text, tokenizer.encode('a photo of a cat')), 'text_embeds', 'text tower'), 'text tower', 'text_embeds');
    if (imageDim !== textDim) throw new ModelPackError(`the towers do not match: image embeddings have ${imageDim} dimensions, text embeddings ${textDim}`);
    return { dimension: imageDim, image, text, sourceModel: typeof config._name_or_path === 'string' ? config._name_or_path : null };
  } finally {
    await Promise.allSettled([vision.release(), textTower.release()]);
  }
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

async function packFile(dir: string, rel: string): Promise<PackFile> {
  const file = path.join(dir, rel);
  return { path: rel, sha256: await sha256(file), bytes: (await fs.stat(file)).size };
}

/** Checks a pack folder as downloaded, without installing it. */
export async function validatePack(srcDir: string): Promise<{ dimension: number; image: PackImageSpec; text: PackTextSpec }> {
  const { dimension, image, text } = await check(await locate(path.resolve(srcDir)));
  return { dimension, image, text };
}

function checkName(name: string): string {
  // `.json` names would collide with active.json beside the packs.
  if (!namePattern.test(name) || name.endsWith('.json')) throw new ModelPackError(`pack name "${name}" must be 1–64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit, not ending in .json`);
  return name;
}

const defaultName = (srcDir: string) =>
  path
    .basename(srcDir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64);

async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`);
  await fs.rename(tmp, file);
}

/**
 * Installs the pack in `srcDir` as `<dataDir>/models/<name>/`. The files are copied into a
 * temporary folder next to it, checked there (so the installed copy is what was tested) and
 * renamed into place: a failed or interrupted install leaves no half pack under its name.
 * Only the files the pack uses are copied, flattened: `onnx/` prefixes are dropped.
 */
export async function installPack(srcDir: string, dataDir: string, options: { name?: string; activate?: boolean } = {}): Promise<InstalledPack> {
  const src = path.resolve(srcDir);
  const layout = await locate(src);
  const name = checkName(options.name ?? defaultName(src));
  const root = modelsDir(dataDir);
  const target = path.join(root, name);
  // a data folder this makes is its owner's only, as the server makes it (docs/operations.md "Files")
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  if (await fs.stat(target).catch(() => undefined)) throw new ModelPackError(`a model pack named "${name}" is already installed; remove it first or choose another --name`);

  const tmp = await fs.mkdtemp(path.join(root, `.installing-${name}-`));
  try {
    const copied: SourceLayout = { dir: tmp, vision: '', text: '', tokenizer: 'tokenizer.json', preprocessor: 'preprocessor_config.json', config: layout.config && 'config.json' };
    for (const role of ['vision', 'text'] as const) {
      const base = path.basename(layout[role]);
      copied[role] = base;
      await fs.copyFile(path.join(src, layout[role]), path.join(tmp, base));
      // Towers over 2 GB keep their weights in a side file named in the model, relative to it.
      for (const side of [`${base}_data`, `${base}.data`]) {
        const from = path.join(src, path.dirname(layout[role]), side);
        if (await exists(from)) await fs.copyFile(from, path.join(tmp, side));
      }
    }
    for (const role of ['tokenizer', 'preprocessor', 'config'] as const) {
      const rel = layout[role];
      if (rel) await fs.copyFile(path.join(src, rel), path.join(tmp, copied[role]!));
    }

    const checked = await check(copied);
    const files = {
      vision: await packFile(tmp, copied.vision),
      text: await packFile(tmp, copied.text),
      tokenizer: await packFile(tmp, copied.tokenizer),
      preprocessor: await packFile(tmp, copied.preprocessor),
      config: copied.config ? await packFile(tmp, copied.config) : null,
    };
    const manifest: PackManifest = {
      format: 1,
      family: 'clip',
      name,
      source_model: checked.sourceModel,
      dimension: checked.dimension,
      fingerprint: createHash('sha256').update(`${files.vision.sha256}:${files.text.sha256}`).digest('hex').slice(0, 16),
      image: checked.image,
      text: checked.text,
      files,
      installed_at: new Date().toISOString(),
    };
    await fs.writeFile(path.join(tmp, manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
    try {
      await fs.rename(tmp, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new ModelPackError(`a model pack named "${name}" was installed meanwhile; remove it first or choose another --name`);
      throw err;
    }
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
  if (options.activate ?? true) await activatePack(dataDir, name);
  return readPack(dataDir, name);
}

/** The manifest of the pack in `packDir`. */
export async function readPackManifest(packDir: string): Promise<PackManifest> {
  const file = path.join(packDir, manifestFile);
  if (!(await exists(file))) throw new ModelPackError(`${packDir} is not an installed model pack (no ${manifestFile})`);
  const manifest = (await readJson(file)) as unknown as PackManifest;
  if (manifest.format !== 1 || manifest.family !== 'clip') throw new ModelPackError(`${file} is a ${manifest.family} pack of format ${manifest.format}; this server reads CLIP packs of format 1`);
  return manifest;
}

async function activeName(dataDir: string): Promise<string | null> {
  const file = path.join(modelsDir(dataDir), activeFile);
  if (!(await exists(file))) return null;
  const name = (await readJson(file)).name;
  if (typeof name !== 'string') throw new ModelPackError(`${file} names no pack; run "loupe models activate --name <pack>" or delete the file`);
  return name;
}

/** One installed pack, by name. */
export async function readPack(dataDir: string, name: string): Promise<InstalledPack> {
  const dir = path.join(modelsDir(dataDir), checkName(name));
  if (!(await exists(path.join(dir, manifestFile)))) throw new ModelPackError(`no model pack named "${name}" is installed`);
  return { ...(await readPackManifest(dir)), dir, active: (await activeName(dataDir)) === name };
}

/** Installed packs by name, and the active one. */
export async function listPacks(dataDir: string): Promise<{ active: string | null; packs: InstalledPack[] }> {
  const root = modelsDir(dataDir);
  const entries = await fs.readdir(root, { withFileTypes: true }).catch(() => []);
  const active = await activeName(dataDir);
  const packs: InstalledPack[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    // Dot folders are installs or removals in progress.
    if (!e.isDirectory() || e.name.startsWith('.') || !(await exists(path.join(root, e.name, manifestFile)))) continue;
    packs.push({ ...(await readPackManifest(path.join(root, e.name))), dir: path.join(root, e.name), active: e.name === active });
  }
  return { active, packs };
}

/** Makes `name` the pack the descriptor and text search use. */
export async function activatePack(dataDir: string, name: string): Promise<{ active: string }> {
  await readPack(dataDir, name);
  await writeJsonAtomic(path.join(modelsDir(dataDir), activeFile), { name, activated_at: new Date().toISOString() });
  return { active: name };
}

/** Leaves no pack active: the built-in engines answer again. */
export async function deactivatePack(dataDir: string): Promise<{ active: null }> {
  await fs.rm(path.join(modelsDir(dataDir), activeFile), { force: true });
  return { active: null };
}

/** Deletes an installed pack; removing the active pack leaves none active. A dry run answers the same and removes nothing. */
export async function removePack(dataDir: string, name: string, options: { dryRun?: boolean } = {}): Promise<{ removed: string; was_active: boolean }> {
  const dir = path.join(modelsDir(dataDir), checkName(name));
  const wasActive = (await activeName(dataDir)) === name;
  if (!(await fs.stat(dir).catch(() => undefined))) {
    if (!wasActive) throw new ModelPackError(`no model pack named "${name}" is installed`);
  } else if (!options.dryRun) {
    // Renamed first so a half-deleted pack is never listed or loaded.
    const trash = path.join(modelsDir(dataDir), `.removing-${name}-${randomBytes(4).toString('hex')}`);
    await fs.rename(dir, trash);
    await fs.rm(trash, { recursive: true, force: true });
  }
  if (wasActive && !options.dryRun) await deactivatePack(dataDir);
  return { removed: name, was_active: wasActive };
}

/**
 * The active pack, or undefined when none is. An active.json naming a pack that is gone is an
 * error, not "none": search results would silently change engine.
 */
export async function activePack(dataDir: string): Promise<InstalledPack | undefined> {
  const name = await activeName(dataDir);
  if (name === null) return undefined;
  try {
    return await readPack(dataDir, name);
  } catch (err) {
    throw new ModelPackError(`the active model pack "${name}" cannot be read (${(err as Error).message}); run "loupe models activate --name <pack>" or "loupe models deactivate"`);
  }
}
