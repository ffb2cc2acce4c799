import { describe, expect, it } from 'vitest';
import { idleMemoryEstimate, memoryTight } from './memory-estimate.ts';

describe('idleMemoryEstimate', () => {
  it('follows the measured idle figures within a tenth of a gigabyte (h202)', () => {
    const gb = (n: number) => n / 1e9;
    expect(gb(idleMemoryEstimate(1, []))).toBeCloseTo(0.22, 1);
    expect(gb(idleMemoryEstimate(1, ['card', 'ocr']))).toBeCloseTo(0.5, 1);
    expect(gb(idleMemoryEstimate(1, ['embed', 'faces', 'objects', 'pose', 'ocr', 'card']))).toBeCloseTo(0.68, 1);
    expect(gb(idleMemoryEstimate(2, ['embed', 'faces', 'objects', 'pose', 'ocr', 'card']))).toBeCloseTo(1.16, 1);
  });

  it('warns of a 1-GiB box warming every model on one worker, which a burst took past its cap (h225), and not of one warming card and OCR', () => {
    const all = ['embed', 'faces', 'objects', 'pose', 'ocr', 'card'];
    expect(memoryTight(2 ** 30, 1, all)).toBe(true);
    expect(memoryTight(2 ** 30, 1, ['card', 'ocr'])).toBe(false);
    expect(memoryTight(1.5 * 2 ** 30, 1, all)).toBe(false);
    expect(memoryTight(24 * 2 ** 30, 2, all)).toBe(false);
  });
});
