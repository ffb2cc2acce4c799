/**
 * A Magic printing's border as its catalog row gives it (MTGJSON `borderColor`, Scryfall
 * `border_color`): black or white, the two a photo tells apart (docs/recognition.md "Border
 * colour"). Old cards carry no collector number, and a name's printings from Alpha to the 2000s
 * differ in the border as much as in anything a photo shows: Unlimited, Revised and the core sets
 * to Ninth Edition are white-bordered, the expansions and reprints since black. Gold (the World
 * Championship decks), silver (the Un-sets) and borderless printings: null.
 */
export type MtgBorderColour = 'white' | 'black';

export function mtgBorder(fields: Record<string, unknown>): MtgBorderColour | null {
  const value = fields.borderColor ?? fields.border_color;
  return value === 'white' || value === 'black' ? value : null;
}
