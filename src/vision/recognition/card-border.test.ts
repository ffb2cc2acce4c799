import { describe, expect, it } from 'vitest';
import { borderLook } from './card-border.ts';

/**
 * An upright card `width` wide: a border 4.5 % of the width in `border`, the rest in `inner`, and
 * a glare spot on the left side's ring (a fifth of its length) that the median must ignore.
 */
function card(width: number, border: [number, number, number], inner: [number, number, number]) {
  const height = Math.round(width / (63 / 88));
  const data = new Uint8Array(width * height * 3);
  const edge = Math.round(width * 0.045);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inBorder = x < edge || y < edge || x >= width - edge || y >= height - edge;
      const glare = x < edge && y > height * 0.4 && y < height * 0.52;
      data.set(glare ? [255, 255, 255] : inBorder ? border : inner, (y * width + x) * 3);
    }
  }
  return { data, width, height };
}

describe('border colour', () => {
  it('tells a yellow border from a silver or a dark one, whatever the card inside', () => {
    expect(borderLook(card(500, [235, 205, 70], [40, 90, 160]))?.colour).toBe('yellow');
    expect(borderLook(card(500, [175, 178, 182], [235, 205, 70]))?.colour).toBe('neutral');
    expect(borderLook(card(500, [30, 30, 34], [235, 205, 70]))?.colour).toBe('neutral');
    // a small card (a listing photo's) is measured the same
    expect(borderLook(card(200, [235, 205, 70], [30, 30, 34]))?.colour).toBe('yellow');
  });

  it('tells a black border from a white one (Magic), and says neither of a grey one or a colour', () => {
    expect(borderLook(card(500, [18, 18, 20], [200, 60, 40]))).toMatchObject({ colour: 'neutral', tone: 'dark' });
    expect(borderLook(card(500, [236, 234, 228], [40, 90, 160]))).toMatchObject({ colour: 'neutral', tone: 'light' });
    expect(borderLook(card(500, [128, 128, 130], [40, 90, 160]))).toMatchObject({ colour: 'neutral', tone: null });
    expect(borderLook(card(500, [235, 205, 70], [40, 90, 160]))).toMatchObject({ colour: 'yellow', tone: null });
  });

  it('says nothing of a ring between the two (a washed-out or warm-lit border), or too thin to sample', () => {
    const between = borderLook(card(500, [200, 185, 150], [40, 90, 160]))!;
    expect(between.lab[2]).toBeGreaterThan(10);
    expect(between.lab[2]).toBeLessThan(25);
    expect(between.colour).toBeNull();
    // a red border is neither
    expect(borderLook(card(500, [200, 40, 40], [40, 90, 160]))?.colour).toBeNull();
    expect(borderLook(card(40, [235, 205, 70], [30, 30, 34]))).toBeNull();
  });
});
