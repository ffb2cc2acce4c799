import fs from 'node:fs/promises';

/**
 * The CLIP text tokenizer, read from a Hugging Face `tokenizer.json` (BPE model with `vocab` and
 * `merges`), behaving like the HF fast tokenizer CLIP exports ship with: NFC, whitespace
 * collapsed, lowercase, CLIP's pre-tokenizer regex, byte-level symbols, BPE with an end-of-word
 * suffix, then `<|startoftext|> … <|endoftext|>` padded to the context length. The original
 * OpenAI tokenizer also runs ftfy and HTML unescaping; the HF export does not, and the towers
 * operators install come with the HF tokenizer, so neither is done here.
 */

export const startOfText = '<|startoftext|>';
export const endOfText = '<|endoftext|>';
export const defaultContextLength = 77;

// CLIP's pre-tokenizer: the special tokens, English contractions, runs of letters, single
// digits, runs of other non-space symbols. Input is lowercased first, so no case folding here.
const pretokenizer = /<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|\p{L}+|\p{N}|[^\s\p{L}\p{N}]+/gu;

/**
 * GPT-2's reversible map from bytes to printable characters: BPE vocabularies are written in
 * these characters so that every byte, whitespace and control bytes included, is a visible symbol.
 */
export function bytesToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const map: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) map[b] = String.fromCharCode(printable.includes(b) ? b : 256 + extra++);
  return map;
}

const byteSymbols = bytesToUnicode();

export interface EncodedText {
  /** Token ids, `contextLength` long: start, tokens, end, then padding. */
  ids: number[];
  /** 1 for real tokens (start and end included), 0 for padding. */
  attentionMask: number[];
}

export class TokenizerFormatError extends Error {}

interface TokenizerJson {
  model?: { type?: string; vocab?: unknown; merges?: unknown; end_of_word_suffix?: unknown; unk_token?: unknown };
  added_tokens?: { id?: unknown; content?: unknown }[];
  padding?: { pad_id?: unknown } | null;
}

export class ClipTokenizer {
  private readonly cache = new Map<string, string[]>();

  private constructor(
    private readonly vocab: Map<string, number>,
    private readonly ranks: Map<string, number>,
    private readonly suffix: string,
    readonly bosId: number,
    readonly eosId: number,
    readonly padId: number,
    private readonly unkId: number,
    readonly contextLength: number,
  ) {}

  static async load(file: string, options: { contextLength?: number } = {}): Promise<ClipTokenizer> {
    let json: unknown;
    try {
      json = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (err) {
      throw new TokenizerFormatError(`cannot read tokenizer ${file}: ${(err as Error).message}`);
    }
    return ClipTokenizer.fromJson(json, options);
  }

  static fromJson(json: unknown, options: { contextLength?: number } = {}): ClipTokenizer {
    const t = (json ?? {}) as TokenizerJson;
    const model = t.model;
    if (!model || model.type !== 'BPE') throw new TokenizerFormatError(`tokenizer.json must hold a BPE model (found ${model?.type ?? 'none'}); CLIP packs use BPE`);
    if (!model.vocab || typeof model.vocab !== 'object' || Array.isArray(model.vocab)) throw new TokenizerFormatError('tokenizer.json model.vocab must map tokens to ids');
    if (!Array.isArray(model.merges)) throw new TokenizerFormatError('tokenizer.json model.merges must be a list');

    const vocab = new Map<string, number>();
    for (const [token, id] of Object.entries(model.vocab)) {
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) throw new TokenizerFormatError(`tokenizer.json vocab id of ${JSON.stringify(token)} is not a non-negative integer`);
      vocab.set(token, id);
    }
    for (const added of t.added_tokens ?? []) {
      if (typeof added.content === 'string' && typeof added.id === 'number') vocab.set(added.content, added.id);
    }

    // Merges are "a b" strings in tokenizers < 0.20 and ["a", "b"] pairs since; byte-level
    // symbols never contain a space, so both become the same key.
    const ranks = new Map<string, number>();
    model.merges.forEach((merge: unknown, rank) => {
      const pair = typeof merge === 'string' ? merge.split(' ') : merge;
      if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((p) => typeof p === 'string')) {
        throw new TokenizerFormatError(`tokenizer.json merge #${rank} is not a pair of tokens: ${JSON.stringify(merge)}`);
      }
      const key = `${pair[0]} ${pair[1]}`;
      if (!ranks.has(key)) ranks.set(key, rank);
    });

    const special = (token: string) => {
      const id = vocab.get(token);
      if (id === undefined) throw new TokenizerFormatError(`tokenizer.json has no ${token} token; it is not a CLIP tokenizer`);
      return id;
    };
    const bosId = special(startOfText);
    const eosId = special(endOfText);
    // CLIP's text tower reads the features at the first end token (or the largest id), so
    // padding with the end token, as the HF CLIP tokenizer does, leaves the result unchanged.
    const padId = typeof t.padding?.pad_id === 'number' ? t.padding.pad_id : eosId;
    const unkId = typeof model.unk_token === 'string' ? (vocab.get(model.unk_token) ?? eosId) : eosId;
    const suffix = typeof model.end_of_word_suffix === 'string' ? model.end_of_word_suffix : '</w>';
    const contextLength = options.contextLength ?? defaultContextLength;
    if (!Number.isInteger(contextLength) || contextLength < 2) throw new TokenizerFormatError(`context length must be an integer ≥ 2, got ${contextLength}`);
    return new ClipTokenizer(vocab, ranks, suffix, bosId, eosId, padId, unkId, contextLength);
  }

  /** CLIP's text cleaning: Unicode NFC, whitespace runs to one space, trimmed, lowercase. */
  static clean(text: string): string {
    return text.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
  }

  /** The BPE token strings of `text`, without start/end tokens or padding. */
  tokens(text: string): string[] {
    const out: string[] = [];
    for (const match of ClipTokenizer.clean(text).matchAll(pretokenizer)) {
      const word = match[0];
      if (word === startOfText || word === endOfText) {
        out.push(word);
        continue;
      }
      let symbols = '';
      for (const byte of Buffer.from(word, 'utf8')) symbols += byteSymbols[byte];
      out.push(...this.bpe(symbols));
    }
    return out;
  }

  /** Token ids padded or truncated to the context length, with the attention mask. */
  encode(text: string): EncodedText {
    const body = this.tokens(text).map((token) => this.vocab.get(token) ?? this.unkId);
    const ids = [this.bosId, ...body.slice(0, this.contextLength - 2), this.eosId];
    const attentionMask = ids.map(() => 1);
    while (ids.length < this.contextLength) {
      ids.push(this.padId);
      attentionMask.push(0);
    }
    return { ids, attentionMask };
  }

  private bpe(symbols: string): string[] {
    const cached = this.cache.get(symbols);
    if (cached) return cached;
    const word = [...symbols];
    word[word.length - 1] += this.suffix;
    while (word.length > 1) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i < word.length - 1; i++) {
        const rank = this.ranks.get(`${word[i]} ${word[i + 1]}`);
        if (rank !== undefined && rank < bestRank) {
          bestRank = rank;
          best = i;
        }
      }
      if (best < 0) break;
      const first = word[best]!;
      const second = word[best + 1]!;
      // Merge every occurrence of the best pair, left to right, as reference BPE does.
      for (let i = 0; i < word.length - 1; i++) {
        if (word[i] === first && word[i + 1] === second) word.splice(i, 2, first + second);
      }
    }
    // Prompts repeat words; the cache is bounded so arbitrary user text cannot grow it forever.
    if (this.cache.size >= 10_000) this.cache.clear();
    this.cache.set(symbols, word);
    return word;
  }
}
