import { describe, expect, it } from 'vitest';
import { bytesToUnicode, ClipTokenizer, TokenizerFormatError } from './clip-tokenizer.ts';

// A hand-made vocabulary: every case below was worked out on paper from these merges.
const merges = ['h e', 'l l', 'he ll', 'hell o</w>', 'w o', 'wo r'];
const tokens = ['h', 'e', 'l', 'o', 'w', 'r', 'd</w>', 'o</w>', 'he', 'll', 'hell', 'hello</w>', 'wo', 'wor', "'", 's</w>', 'i', 't</w>', '!', '!</w>'];
const vocab = Object.fromEntries([...tokens, '<|startoftext|>', '<|endoftext|>'].map((t, i) => [t, i]));
const BOS = tokens.length;
const EOS = tokens.length + 1;
const tokenizerJson = (overrides: Record<string, unknown> = {}) => ({
  added_tokens: [],
  model: { type: 'BPE', vocab, merges, end_of_word_suffix: '</w>', unk_token: '<|endoftext|>', ...overrides },
});

describe('ClipTokenizer', () => {
  const tok = ClipTokenizer.fromJson(tokenizerJson(), { contextLength: 8 });

  it('maps bytes to the GPT-2 printable symbols', () => {
    const map = bytesToUnicode();
    expect(map).toHaveLength(256);
    expect(new Set(map).size).toBe(256);
    expect(map[0x41]).toBe('A');
    expect(map[0x20]).toBe('Ġ');
    expect(map[0x0a]).toBe('Ċ');
    expect(map[0xc3]).toBe('Ã');
  });

  it('cleans whitespace and case, then applies merges by rank', () => {
    expect(tok.tokens('  Hello \n\t WORLD ')).toEqual(['hello</w>', 'wor', 'l', 'd</w>']);
  });

  it('merges every occurrence of the best pair', () => {
    // h e → he (both), l l → ll (both), he ll → hell (both), then only the final o carries </w>.
    expect(tok.tokens('hellohello')).toEqual(['hell', 'o', 'hello</w>']);
  });

  it('splits contractions, single digits and symbol runs like CLIP', () => {
    expect(tok.tokens("it's")).toEqual(['i', 't</w>', "'", 's</w>']);
    expect(tok.tokens('2024')).toEqual(['2</w>', '0</w>', '2</w>', '4</w>']);
    expect(tok.tokens('hello!!')).toEqual(['hello</w>', '!', '!</w>']);
    expect(tok.tokens('<|startoftext|>hello')).toEqual(['<|startoftext|>', 'hello</w>']);
  });

  it('writes non-ASCII text as byte symbols', () => {
    // é is C3 A9 in UTF-8.
    expect(tok.tokens('é')).toEqual(['Ã', '©</w>']);
  });

  it('adds start and end, pads with the end token and masks the padding', () => {
    expect(tok.encode('hello world')).toEqual({
      ids: [BOS, vocab['hello</w>'], vocab.wor, vocab.l, vocab['d</w>'], EOS, EOS, EOS],
      attentionMask: [1, 1, 1, 1, 1, 1, 0, 0],
    });
  });

  it('maps tokens outside the vocabulary to the unknown token', () => {
    expect(tok.encode('x').ids.slice(0, 3)).toEqual([BOS, EOS, EOS]);
  });

  it('truncates to the context length, keeping the end token', () => {
    const short = ClipTokenizer.fromJson(tokenizerJson(), { contextLength: 5 });
    expect(short.encode('hello hello hello hello hello')).toEqual({ ids: [BOS, vocab['hello</w>'], vocab['hello</w>'], vocab['hello</w>'], EOS], attentionMask: [1, 1, 1, 1, 1] });
  });

  it('reads merges written as pairs (tokenizers ≥ 0.20) like merges written as strings', () => {
    const pairs = ClipTokenizer.fromJson(tokenizerJson({ merges: merges.map((m) => m.split(' ')) }), { contextLength: 8 });
    expect(pairs.encode('hello world hellohello')).toEqual(tok.encode('hello world hellohello'));
  });

  it('uses the pad id tokenizer.json names and the 77-token CLIP context by default', () => {
    const padded = ClipTokenizer.fromJson({ ...tokenizerJson(), padding: { pad_id: 0 } });
    const { ids } = padded.encode('hello');
    expect(ids).toHaveLength(77);
    expect(ids.slice(0, 4)).toEqual([BOS, vocab['hello</w>'], EOS, 0]);
  });

  it('refuses tokenizers that are not CLIP BPE', () => {
    expect(() => ClipTokenizer.fromJson({ model: { type: 'WordPiece', vocab: {} } })).toThrow(/BPE/);
    expect(() => ClipTokenizer.fromJson({ model: { type: 'BPE', vocab: { a: 0 }, merges: [] } })).toThrow(TokenizerFormatError);
    expect(() => ClipTokenizer.fromJson({ model: { type: 'BPE', vocab: { a: 0 }, merges: [] } })).toThrow(/<\|startoftext\|>/);
    expect(() => ClipTokenizer.fromJson(tokenizerJson({ merges: ['a b c'] }))).toThrow(/merge #0/);
  });
});
