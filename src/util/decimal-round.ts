/**
 * `n` rounded to `digits` decimals, half away from zero as its decimal reads (its shortest form): 1.005 is 1.01 and
 * 371.025 is 371.03, as a spreadsheet rounds. n × 100 in binary floating point gave 100.49999…, so `toFixed` and
 * `Math.round(n * 100)` made 1.005 1.00 and 371.025 371.02 while 2.675 became 2.68 (h107). Never -0.
 */
export function roundDecimal(n: number, digits: number): number {
  const scaled = Number(`${Math.abs(n)}e${digits}`);
  const r = Number.isFinite(scaled) ? Math.sign(n) * (Math.round(scaled) / 10 ** digits) : Math.round(n * 10 ** digits) / 10 ** digits;
  return r === 0 ? 0 : r;
}
