/**
 * The named colours dominant colours are reported with (docs/colors.md). The names are the ones
 * shoppers use for clothes and home furnishings, so the reference values are the shades those
 * names usually mean on fabric, paint and product photos, not CSS keywords (CSS `beige`,
 * #f5f5dc, is nearly white; CSS `khaki` is a pale yellow). A colour takes the name of the nearest
 * reference by ΔE*uv, the Euclidean distance in CIE L*u*v*.
 *
 * Changing a value renames colours in stored results: add a test case when you do.
 */
export interface PaletteColor {
  name: string;
  /** sRGB, `#rrggbb`. */
  hex: string;
}

export const colorPalette: readonly PaletteColor[] = [
  // Neutrals
  { name: 'black', hex: '#141414' },
  { name: 'charcoal', hex: '#3a3d42' },
  { name: 'dark grey', hex: '#5f6166' },
  { name: 'grey', hex: '#8e8e8e' },
  { name: 'light grey', hex: '#c4c4c4' },
  { name: 'white', hex: '#f7f7f5' },
  { name: 'ivory', hex: '#f2ead3' },
  { name: 'beige', hex: '#d9c5a0' },
  { name: 'taupe', hex: '#8b7d6b' },
  // Browns
  { name: 'camel', hex: '#c19a6b' },
  { name: 'khaki', hex: '#b3a580' },
  { name: 'brown', hex: '#7b4a2a' },
  { name: 'dark brown', hex: '#3f2a1e' },
  { name: 'rust', hex: '#b0461d' },
  // Reds and pinks
  { name: 'red', hex: '#d2141e' },
  { name: 'burgundy', hex: '#7a1a2c' },
  { name: 'coral', hex: '#f2765f' },
  { name: 'rose', hex: '#d65a6e' },
  { name: 'pink', hex: '#f2a7bd' },
  { name: 'hot pink', hex: '#ec4c9a' },
  { name: 'magenta', hex: '#c0267e' },
  { name: 'peach', hex: '#f8c4a0' },
  // Oranges and yellows
  { name: 'orange', hex: '#f0761c' },
  { name: 'mustard', hex: '#c28e0e' },
  { name: 'gold', hex: '#d4af37' },
  { name: 'yellow', hex: '#f5d937' },
  { name: 'cream', hex: '#f6ecbf' },
  // Greens
  { name: 'olive', hex: '#6b6b2a' },
  { name: 'lime green', hex: '#9ccc3c' },
  { name: 'green', hex: '#2f9a45' },
  { name: 'dark green', hex: '#1e4a2e' },
  { name: 'sage', hex: '#9cae8c' },
  { name: 'mint', hex: '#aee3c9' },
  { name: 'teal', hex: '#137a7a' },
  { name: 'turquoise', hex: '#34c3c4' },
  // Blues
  { name: 'light blue', hex: '#a5c8e6' },
  { name: 'sky blue', hex: '#5aaee0' },
  { name: 'blue', hex: '#2456c8' },
  { name: 'denim', hex: '#4a6487' },
  { name: 'navy blue', hex: '#1c2748' },
  // Purples
  { name: 'purple', hex: '#6b3294' },
  { name: 'lavender', hex: '#b8a6d9' },
  { name: 'plum', hex: '#5e2a4e' },
  { name: 'mauve', hex: '#b48a9b' },
];
