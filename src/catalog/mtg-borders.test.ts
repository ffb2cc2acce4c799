import { describe, expect, it } from 'vitest';
import { mtgBorder } from './mtg-borders.ts';

describe('Magic borders', () => {
  it('are black or white as MTGJSON or Scryfall gives them; gold, silver and borderless say nothing', () => {
    expect(mtgBorder({ borderColor: 'white' })).toBe('white');
    expect(mtgBorder({ border_color: 'black' })).toBe('black');
    expect(mtgBorder({ borderColor: 'gold' })).toBeNull();
    expect(mtgBorder({ borderColor: 'borderless' })).toBeNull();
    expect(mtgBorder({})).toBeNull();
  });
});
