/**
 * Typed changes not saved, on whichever page holds them (the card editor): the console asks before they are
 * thrown away, by opening another card, leaving the page or closing the tab (they went without a word, h97).
 */
export const unsavedEdits = { current: false };

export const discardQuestion = 'Discard the changes you typed for this card? They are not saved.';

/** True when nothing typed is held, or the user says to throw it away (then nothing is held any more). */
export function leaveUnsaved(): boolean {
  if (unsavedEdits.current && !confirm(discardQuestion)) return false;
  unsavedEdits.current = false;
  return true;
}
