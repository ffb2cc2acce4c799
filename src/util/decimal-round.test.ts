import { describe, expect, it } from 'vitest';
import { roundDecimal } from './decimal-round.ts';

describe('roundDecimal', () => {
  it('rounds half away from zero as the decimal reads, whatever binary floating point makes of n × 10^digits', () => {
    expect([1.005, 0.285, 2.675, 1.115, -1.005, 0.004, 0.005, 123456789.125, 371.025, 268.305, 2099.995].map((n) => roundDecimal(n, 2))).toEqual([1.01, 0.29, 2.68, 1.12, -1.01, 0, 0.01, 123456789.13, 371.03, 268.31, 2100]);
    expect([1e-7, 1.23e21, 0, -0.001].map((n) => roundDecimal(n, 2))).toEqual([0, 1.23e21, 0, 0]);
    expect(Object.is(roundDecimal(-0.001, 2), 0)).toBe(true);
    expect([0.00005, 2.52305, -0.12345].map((n) => roundDecimal(n, 4))).toEqual([0.0001, 2.5231, -0.1235]);
  });
});
