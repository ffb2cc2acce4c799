/** English names of the ISO 639-1 codes the card and label readers name (`_ocr.lang_name`, document 3 §2). */
const LANGUAGE_NAMES: Record<string, string> = { en: 'English', fr: 'French', de: 'German', es: 'Spanish', it: 'Italian', pt: 'Portuguese', ja: 'Japanese', zh: 'Chinese', ko: 'Korean' };

/** A language code's name (the code itself for one not listed); null when no language is known. */
export const languageName = (code: string | null): string | null => (code ? (LANGUAGE_NAMES[code] ?? code) : null);
