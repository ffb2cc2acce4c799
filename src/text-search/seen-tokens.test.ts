import { describe, expect, it } from 'vitest';
import { seenText, type Observed } from './seen-tokens.ts';

const base: Observed = { width: 1000, height: 1000, parts: ['objects', 'faces', 'colors', 'ocr'], objects: [], faces: [], colors: [], ocr: [] };
const count = (text: string, code: string) => text.split(' ').filter((c) => c === code).length;

describe('seenText', () => {
  it('repeats an object by how much of the image it fills, and drops weak detections', () => {
    const t = seenText({
      ...base,
      objects: [
        { name: 'car', prob: 0.9, box: [0, 0, 600, 600] },
        { name: 'dog', prob: 0.6, box: [0, 0, 100, 100] },
        { name: 'cat', prob: 0.2, box: [0, 0, 900, 900] },
        { name: 'unicorn', prob: 0.9, box: [0, 0, 900, 900] },
      ],
    });
    expect(count(t.seen, 'xocar')).toBe(3);
    expect(count(t.seen, 'xodog')).toBe(1);
    expect(t.seen).not.toContain('xocat');
    expect(t.seen).not.toContain('unicorn');
  });

  it('names colours by shade and family, by share, and an object with its colour as a pair', () => {
    const t = seenText({
      ...base,
      colors: [
        { luv: [30, -5, -40], share: 0.65, name: 'navy blue' },
        { luv: [50, 80, 30], share: 0.12, name: 'red' },
        { luv: [90, 0, 0], share: 0.05, name: 'white' },
      ],
      objects: [{ name: 'car', prob: 0.9, box: [0, 0, 500, 500], colors: [{ luv: [50, 80, 30], share: 0.7, name: 'red' }] }],
    });
    expect(count(t.seen, 'xkblue')).toBe(3);
    expect(count(t.seen, 'xcnavyblue')).toBe(3);
    expect(count(t.seen, 'xkred')).toBe(1);
    expect(t.seen).not.toContain('xcred');
    expect(t.seen).not.toContain('xkwhite');
    expect(t.seen).toContain('xpocarred');
    expect(t.colors[0]).toEqual([30, -5, -40, 0.65]);
  });

  it('adds a family only the backdrop shows once, and keeps the colours with the backdrop for ranking', () => {
    const red = { luv: [50, 80, 30] as [number, number, number], share: 1, name: 'red' };
    const t = seenText({ ...base, colors: [red], scene: [{ ...red, share: 0.55 }, { luv: [98, 0, 0], share: 0.45, name: 'white' }] });
    expect(count(t.seen, 'xkred')).toBe(3);
    expect(count(t.seen, 'xkwhite')).toBe(1);
    expect(t.colors).toEqual([[50, 80, 30, 1], [50, 80, 30, 0.55, 1], [98, 0, 0, 0.45, 1]]);
    // a record seen before scene colours existed: its colours as they were
    expect(seenText({ ...base, colors: [red] }).colors).toEqual([[50, 80, 30, 1]]);
  });

  it('counts people and marks a portrait', () => {
    const two = seenText({ ...base, objects: [{ name: 'person', prob: 0.8, box: [0, 0, 100, 300] }, { name: 'person', prob: 0.8, box: [200, 0, 300, 300] }] });
    expect(two.seen).toContain('xntwo');
    const one = seenText({ ...base, objects: [{ name: 'person', prob: 0.8, box: [0, 0, 800, 1000] }], faces: [{ prob: 0.9, box: [200, 100, 700, 600] }] });
    expect(one.seen.split(' ')).toEqual(expect.arrayContaining(['xnone', 'xface', 'xportrait']));
  });

  it('repeats a face by how much of the image the largest face fills', () => {
    const small = seenText({ ...base, faces: [{ prob: 0.9, box: [0, 0, 30, 30] }, { prob: 0.9, box: [100, 0, 140, 40] }] });
    expect(count(small.seen, 'xface')).toBe(1);
    const portrait = seenText({ ...base, faces: [{ prob: 0.9, box: [200, 100, 800, 700] }] });
    expect(count(portrait.seen, 'xface')).toBe(3);
    expect(seenText({ ...base, faces: [{ prob: 0.3, box: [200, 100, 800, 700] }] }).seen).not.toContain('xface');
  });

  it('keeps confident OCR lines, folded, with Chinese split into words', () => {
    const t = seenText({ ...base, ocr: [{ text: 'Café OPEN', prob: 0.9 }, { text: 'noise', prob: 0.3 }, { text: '红色连衣裙', prob: 0.8 }] });
    expect(t.ocr.startsWith('cafe open ')).toBe(true);
    expect(t.ocr).not.toContain('noise');
    expect(t.ocr.split(' ').length).toBeGreaterThan(3);
  });
});
