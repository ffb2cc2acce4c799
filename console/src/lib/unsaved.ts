/**
 * Typed changes not saved, on whichever page holds them (the card editor): the console asks before they are
 * thrown away, by opening another card, leaving the page or closing the tab (they went without a word, h97).
 */
export const unsavedEdits = { current: false };

export const discardQuestion = 'Discard the changes you typed for this card? They are not saved.';
