import { describe, expect, it } from 'vitest';
import { linkExpired } from './format.ts';

describe('linkExpired', () => {
  it('reads the expiry of a signed media link', () => {
    const now = 1_800_000_000_000;
    expect(linkExpired(`/media/k?expires=${now / 1000 - 5}&sig=ab`, now)).toBe(true);
    expect(linkExpired(`/media/k?expires=${now / 1000 + 30}&sig=ab`, now)).toBe(true);
    expect(linkExpired(`/media/k?expires=${now / 1000 + 3600}&sig=ab`, now)).toBe(false);
    expect(linkExpired('https://shop.example/photo.jpg', now)).toBe(false);
  });
});
