/**
 * `n` rounded to `digits` decimals, half away from zero as its decimal reads: 1.005 is 1.01 and 371.025 is 371.03, as
 * a spreadsheet rounds. The decimal is the double's to 15 significant digits, so the noise of arithmetic is not read
 * as a digit (a median of 18.81 and 18.82 computed as 18.814999999999998 is 18.815, h110); n × 100 in binary floating
 * point gave 100.49999…, so `toFixed` and `Math.round(n * 100)` made 1.005 1.00 (h107). A value too large to hold
 * `digits` decimals exactly (past 2^53 once scaled) comes back as it is, as do NaN and ±Infinity. Never -0.
 */
export function roundDecimal(n: number, digits: number): number {
  if (!Number.isFinite(n)) return n;
  const [mantissa, exponent = '0'] = Math.abs(n).toPrecision(15).split('e');
  const scaled = Math.round(Number(`${mantissa}e${Number(exponent) + digits}`));
  if (!Number.isSafeInteger(scaled)) return n;
  const r = (Math.sign(n) * scaled) / 10 ** digits;
  return r === 0 ? 0 : r;
}
