import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeRgb } from '../../media/decode-rgb.ts';
import { crop } from './flows-job.ts';

describe("a flow's over-step crop", () => {
  it('shows a transparent area on white, as the whole image is seen by every step (h340: black)', async () => {
    // a cut-out: a blue square on nothing, as a background remover gives it
    const cutout = await sharp({ create: { width: 40, height: 40, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: { create: { width: 20, height: 20, channels: 4, background: '#1040c0' } }, left: 10, top: 10 }])
      .png()
      .toBuffer();
    const part = await decodeRgb(await crop(cutout, [0, 0, 30, 30]), 1e6);
    const whole = await decodeRgb(cutout, 1e6);
    const at = (img: { data: Buffer; width: number }, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 3, (y * img.width + x) * 3 + 3)];
    expect(at(whole, 2, 2)).toEqual([255, 255, 255]);
    // JPEG rounds a little; black (0, 0, 0) was what the step saw
    for (const v of at(part, 2, 2)) expect(v).toBeGreaterThan(245);
    for (const [v, want] of at(part, 20, 20).map((v, i) => [v, [0x10, 0x40, 0xc0][i]!])) expect(Math.abs(v! - want!)).toBeLessThan(12);
  });
});
