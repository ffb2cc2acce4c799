import { describe, expect, it } from 'vitest';
import { idleMemoryEstimate } from './memory-estimate.ts';

describe('idleMemoryEstimate', () => {
  it('follows the measured idle figures within a tenth of a gigabyte (h202)', () => {
    const gb = (n: number) => n / 1e9;
    expect(gb(idleMemoryEstimate(1, []))).toBeCloseTo(0.22, 1);
    expect(gb(idleMemoryEstimate(1, ['card', 'ocr']))).toBeCloseTo(0.5, 1);
    expect(gb(idleMemoryEstimate(1, ['embed', 'faces', 'objects', 'pose', 'ocr', 'card']))).toBeCloseTo(0.68, 1);
    expect(gb(idleMemoryEstimate(2, ['embed', 'faces', 'objects', 'pose', 'ocr', 'card']))).toBeCloseTo(1.16, 1);
  });
});
