import fs from 'node:fs/promises';
import path from 'node:path';
import { bytesToUnicode, endOfText, startOfText } from '../../src/vision/clip/clip-tokenizer.ts';

/**
 * A CLIP-family model pack small enough to write from a test: the layout and tensor interface of
 * a public CLIP ONNX export (Xenova/clip-vit-base-patch32), with towers that make colour words
 * and flat colour images land on the same directions, so text-to-image search has a right answer.
 *
 * - vision: pixel_values [N,3,32,32] → GlobalAveragePool → Flatten → MatMul [3,D] → image_embeds.
 *   The projection sends the normalised R, G and B means to the first three axes.
 * - text: input_ids [N,L] (+ attention_mask) → Gather on a [V,D] table → masked sum over L →
 *   MatMul [D,D] (identity) → text_embeds. Colour words have ±1 on the first three axes
 *   ("red" = +R −G −B); every other token embeds to zero, so "a red car" means "red".
 */

/** Colour words of the tiny pack and their sRGB colours (the corners of the RGB cube). */
export const tinyClipColours: Record<string, [number, number, number]> = {
  red: [255, 0, 0],
  green: [0, 255, 0],
  blue: [0, 0, 255],
  yellow: [255, 255, 0],
  cyan: [0, 255, 255],
  magenta: [255, 0, 255],
  white: [255, 255, 255],
  black: [0, 0, 0],
};

export interface TinyClipOptions {
  /** `nested`: onnx/vision_model.onnx like the HF repository; `flat`: both towers at the top. */
  layout?: 'nested' | 'flat';
  /** Names the towers vision_model_quantized.onnx / text_model_quantized.onnx. */
  quantizedNames?: boolean;
  /** Embedding size of the image tower (default 8). */
  dim?: number;
  /** Embedding size of the text tower (default: same as the image tower). */
  textDim?: number;
  /** Name of the vision input (default pixel_values). */
  visionInput?: string;
  /** Declare and use an attention_mask input on the text tower (default true). */
  attentionMask?: boolean;
  /** Context length written to config.json (default 77). */
  contextLength?: number;
}

export const tinyClipImageSize = 32;

// ---- A minimal protobuf writer: enough of onnx.proto for these two graphs. ----

type Field = Buffer;

function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  while (v >= 0x80n) {
    bytes.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  bytes.push(Number(v));
  return Buffer.from(bytes);
}

const key = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, value: number | bigint): Field => Buffer.concat([key(field, 0), varint(value)]);
const bytes = (field: number, value: Buffer | string): Field => {
  const b = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([key(field, 2), varint(b.length), b]);
};
const message = (field: number, ...parts: Field[]): Field => bytes(field, Buffer.concat(parts));

const FLOAT = 1;
const INT64 = 7;

function tensor(field: number, name: string, dims: number[], type: typeof FLOAT | typeof INT64, values: number[]): Field {
  const raw = type === FLOAT ? Buffer.from(new Float32Array(values).buffer) : Buffer.from(new BigInt64Array(values.map(BigInt)).buffer);
  return message(field, ...dims.map((d) => int(1, d)), int(2, type), bytes(8, name), bytes(9, raw));
}

function valueInfo(field: number, name: string, type: number, dims: (number | string)[]): Field {
  const shape = dims.map((d) => message(1, typeof d === 'number' ? int(1, d) : bytes(2, d)));
  return message(field, bytes(1, name), message(2, message(1, int(1, type), message(2, ...shape))));
}

function node(op: string, inputs: string[], outputs: string[], attributes: Field[] = []): Field {
  return message(1, ...inputs.map((i) => bytes(1, i)), ...outputs.map((o) => bytes(2, o)), bytes(3, outputs[0]!), bytes(4, op), ...attributes);
}

const intAttribute = (name: string, value: number): Field => message(5, bytes(1, name), int(3, value), int(20, 2));

function model(graph: Field[]): Buffer {
  // IR 8 with opset 13: ReduceSum and Unsqueeze take their axes as inputs there.
  return Buffer.concat([int(1, 8), bytes(2, 'loupe-tiny-clip'), message(7, bytes(2, 'tiny_clip'), ...graph), message(8, bytes(1, ''), int(2, 13))]);
}

// ---- The towers. ----

function visionModel(dim: number, input: string): Buffer {
  const projection = Array.from({ length: 3 * dim }, (_, i) => (Math.floor(i / dim) === i % dim ? 1 : 0));
  return model([
    node('GlobalAveragePool', [input], ['pooled']),
    node('Flatten', ['pooled'], ['flat'], [intAttribute('axis', 1)]),
    node('MatMul', ['flat', 'projection'], ['image_embeds']),
    tensor(5, 'projection', [3, dim], FLOAT, projection),
    valueInfo(11, input, FLOAT, ['batch_size', 3, tinyClipImageSize, tinyClipImageSize]),
    valueInfo(12, 'image_embeds', FLOAT, ['batch_size', dim]),
  ]);
}

function textModel(dim: number, table: number[][], attentionMask: boolean): Buffer {
  const identity = Array.from({ length: dim * dim }, (_, i) => (Math.floor(i / dim) === i % dim ? 1 : 0));
  const sum = attentionMask
    ? [
        node('Cast', ['attention_mask'], ['mask_float'], [intAttribute('to', FLOAT)]),
        node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_column']),
        node('Mul', ['token_embeds', 'mask_column'], ['masked']),
        node('ReduceSum', ['masked', 'sequence_axis'], ['summed'], [intAttribute('keepdims', 0)]),
      ]
    : [node('ReduceSum', ['token_embeds', 'sequence_axis'], ['summed'], [intAttribute('keepdims', 0)])];
  return model([
    node('Gather', ['token_table', 'input_ids'], ['token_embeds']),
    ...sum,
    node('MatMul', ['summed', 'projection'], ['text_embeds']),
    tensor(5, 'token_table', [table.length, dim], FLOAT, table.flat()),
    tensor(5, 'projection', [dim, dim], FLOAT, identity),
    tensor(5, 'sequence_axis', [1], INT64, [1]),
    ...(attentionMask ? [tensor(5, 'last_axis', [1], INT64, [2])] : []),
    valueInfo(11, 'input_ids', INT64, ['batch_size', 'sequence_length']),
    ...(attentionMask ? [valueInfo(11, 'attention_mask', INT64, ['batch_size', 'sequence_length'])] : []),
    valueInfo(12, 'text_embeds', FLOAT, ['batch_size', dim]),
  ]);
}

// ---- The tokenizer: byte-level base symbols plus merges that make each colour word one token. ----

interface TinyTokenizer {
  json: unknown;
  vocab: Map<string, number>;
}

function tinyTokenizer(words: string[]): TinyTokenizer {
  const vocab = new Map<string, number>();
  const add = (token: string) => {
    if (!vocab.has(token)) vocab.set(token, vocab.size);
  };
  const base = bytesToUnicode();
  for (const s of base) add(s);
  for (const s of base) add(`${s}</w>`);
  const merges: [string, string][] = [];
  const rank = (a: string, b: string) => merges.findIndex(([x, y]) => x === a && y === b);
  // Learn merges the way BPE training would for this tiny corpus: apply the known merges, and
  // when none applies, add one for the first pair. Later merges rank after earlier words' ones,
  // so they cannot change how an earlier word splits.
  for (const w of words) {
    const symbols = [...w];
    symbols[symbols.length - 1] += '</w>';
    while (symbols.length > 1) {
      let best = -1;
      for (let i = 0; i < symbols.length - 1; i++) {
        const r = rank(symbols[i]!, symbols[i + 1]!);
        if (r >= 0 && (best < 0 || r < rank(symbols[best]!, symbols[best + 1]!))) best = i;
      }
      if (best < 0) {
        merges.push([symbols[0]!, symbols[1]!]);
        best = 0;
      }
      const merged = symbols[best]! + symbols[best + 1]!;
      add(merged);
      symbols.splice(best, 2, merged);
    }
  }
  add(startOfText);
  add(endOfText);
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [startOfText, endOfText].map((content) => ({ id: vocab.get(content), content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true })),
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'Lowercase' }] },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+" }, behavior: 'Removed', invert: true },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: { type: 'RobertaProcessing', sep: [endOfText, vocab.get(endOfText)], cls: [startOfText, vocab.get(startOfText)], trim_offsets: false, add_prefix_space: false },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: endOfText,
      continuing_subword_prefix: '',
      end_of_word_suffix: '</w>',
      fuse_unk: false,
      byte_fallback: false,
      vocab: Object.fromEntries(vocab),
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
  return { json, vocab };
}

/** Sign of a colour channel around mid-grey: the direction the word's embedding points. */
const sign = (channel: number) => (channel > 127 ? 1 : -1);

/** Writes the tiny pack into `dir` (created if needed) and returns `dir`. */
export async function writeTinyClipPack(dir: string, options: TinyClipOptions = {}): Promise<string> {
  const dim = options.dim ?? 8;
  const textDim = options.textDim ?? dim;
  const words = Object.keys(tinyClipColours);
  const { json, vocab } = tinyTokenizer(words);
  const table = Array.from({ length: vocab.size }, () => new Array<number>(textDim).fill(0));
  for (const [word, rgb] of Object.entries(tinyClipColours)) {
    const row = table[vocab.get(`${word}</w>`)!]!;
    rgb.forEach((c, axis) => (row[axis] = sign(c)));
  }

  const towers = options.layout === 'flat' ? dir : path.join(dir, 'onnx');
  const suffix = options.quantizedNames ? '_quantized' : '';
  await fs.mkdir(towers, { recursive: true });
  await fs.writeFile(path.join(towers, `vision_model${suffix}.onnx`), visionModel(dim, options.visionInput ?? 'pixel_values'));
  await fs.writeFile(path.join(towers, `text_model${suffix}.onnx`), textModel(textDim, table, options.attentionMask ?? true));
  await fs.writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(json));
  await fs.writeFile(
    path.join(dir, 'preprocessor_config.json'),
    JSON.stringify({
      crop_size: { height: tinyClipImageSize, width: tinyClipImageSize },
      do_center_crop: true,
      do_convert_rgb: true,
      do_normalize: true,
      do_rescale: true,
      do_resize: true,
      image_mean: [0.48145466, 0.4578275, 0.40821073],
      image_std: [0.26862954, 0.26130258, 0.27577711],
      image_processor_type: 'CLIPImageProcessor',
      resample: 3,
      rescale_factor: 1 / 255,
      size: { shortest_edge: tinyClipImageSize },
    }),
  );
  await fs.writeFile(
    path.join(dir, 'config.json'),
    JSON.stringify({
      _name_or_path: 'loupe/tiny-clip',
      architectures: ['CLIPModel'],
      model_type: 'clip',
      projection_dim: dim,
      text_config: { max_position_embeddings: options.contextLength ?? 77, vocab_size: vocab.size },
      vision_config: { image_size: tinyClipImageSize, patch_size: tinyClipImageSize },
    }),
  );
  return dir;
}

/** A flat-colour image as the vision modules take it. */
export function solidImage(rgb: readonly [number, number, number], width = 48, height = 40): { data: Uint8Array; width: number; height: number } {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i += 3) data.set(rgb, i);
  return { data, width, height };
}
