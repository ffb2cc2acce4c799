import { describe, expect, it } from 'vitest';
import { roundDecimal } from './decimal-round.ts';

describe('roundDecimal', () => {
  it('rounds half away from zero as the decimal reads, whatever binary floating point makes of n × 10^digits', () => {
    expect([1.005, 0.285, 2.675, 1.115, -1.005, 0.004, 0.005, 123456789.125, 371.025, 268.305, 2099.995].map((n) => roundDecimal(n, 2))).toEqual([1.01, 0.29, 2.68, 1.12, -1.01, 0, 0.01, 123456789.13, 371.03, 268.31, 2100]);
    expect([1e-7, 1.23e21, 0, -0.001].map((n) => roundDecimal(n, 2))).toEqual([0, 1.23e21, 0, 0]);
    // arithmetic's noise is no digit: the median of 18.81 and 18.82 interpolated as 18.814999999999998 (h110)
    expect([18.814999999999998, (35.25 + 35.26) / 2, (68.13 + 68.14) / 2].map((n) => roundDecimal(n, 2))).toEqual([18.82, 35.26, 68.14]);
    // too large for the decimals asked: as it is
    expect([1e21, 123456789012345.67, Number.NaN, Infinity].map((n) => roundDecimal(n, 2))).toEqual([1e21, 123456789012345.67, Number.NaN, Infinity]);
    expect(Object.is(roundDecimal(-0.001, 2), 0)).toBe(true);
    expect([0.00005, 2.52305, -0.12345].map((n) => roundDecimal(n, 4))).toEqual([0.0001, 2.5231, -0.1235]);
  });
});
