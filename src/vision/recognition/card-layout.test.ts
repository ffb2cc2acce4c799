import { describe, expect, it } from 'vitest';
import { layoutLook } from './card-layout.ts';

/**
 * An upright card `width` wide whose text box (its lower half) is a plain panel with lines of dark
 * text, or a picture: blotches of colour every few pixels, as artwork under the attacks.
 */
function card(width: number, box: 'panel' | 'art') {
  const height = Math.round(width / (63 / 88));
  const data = new Uint8Array(width * height * 3);
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const blotch = Math.max(2, Math.round(width * 0.05));
  const colours: [number, number, number][] = [];
  for (let i = 0; i < 400; i++) colours.push([Math.round(rand() * 255), Math.round(rand() * 255), Math.round(rand() * 255)]);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const lower = y > height * 0.5;
      const textLine = (y % Math.round(width * 0.04)) < Math.max(1, Math.round(width * 0.008)) && x % 7 < 4;
      let c: [number, number, number];
      if (!lower) c = [90, 140, 200];
      else if (box === 'panel') c = textLine ? [20, 20, 20] : [232, 228, 218];
      else c = textLine ? [250, 250, 250] : colours[(Math.floor(y / blotch) * 31 + Math.floor(x / blotch)) % colours.length]!;
      data.set(c, (y * width + x) * 3);
    }
  }
  return { data, width, height };
}

describe('text-box layout', () => {
  it('tells a plain text box from artwork under the text, at a listing photo’s size too', () => {
    const framed = layoutLook(card(500, 'panel'))!;
    expect(framed.layout).toBe('framed');
    expect(framed.plain).toBeGreaterThan(0.9);
    const full = layoutLook(card(500, 'art'))!;
    expect(full.layout).toBe('full');
    expect(full.plain).toBeLessThan(0.2);
    expect(layoutLook(card(200, 'panel'))?.layout).toBe('framed');
    expect(layoutLook(card(200, 'art'))?.layout).toBe('full');
  });

  it('keeps a type-coloured gradient panel framed, and says nothing of a box half panel, half artwork', () => {
    const gradient = card(500, 'panel');
    const { width, height, data } = gradient;
    // the panel shades from a light green to a slightly darker one down the box, as type-coloured boxes do
    for (let y = Math.round(height * 0.5); y < height; y++) {
      const t = (y - height * 0.5) / (height * 0.5);
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        if (data[i] !== 20) data.set([Math.round(210 - 20 * t), Math.round(232 - 15 * t), Math.round(200 - 20 * t)], i);
      }
    }
    expect(layoutLook(gradient)?.layout).toBe('framed');
    const half = card(500, 'panel');
    const art = card(500, 'art');
    for (let y = Math.round(half.height * 0.5); y < half.height; y++) {
      const row = y * half.width * 3;
      half.data.set(art.data.subarray(row, row + Math.round(half.width / 2) * 3), row);
    }
    const mixed = layoutLook(half)!;
    expect(mixed.plain).toBeGreaterThan(0.4);
    expect(mixed.plain).toBeLessThan(0.7);
    expect(mixed.layout).toBeNull();
  });

  it('says nothing of a card too small for blocks', () => {
    expect(layoutLook(card(60, 'panel'))).toBeNull();
  });
});
