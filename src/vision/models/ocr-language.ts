/**
 * The OCR language hint, apart from the reader so the main thread can check a hint without
 * loading onnxruntime (the reader itself only runs in vision workers).
 */
export type OcrLanguage = 'auto' | 'en' | 'zh';
export const ocrLanguages: readonly OcrLanguage[] = ['auto', 'en', 'zh'];

/** A language hint the model cannot honour; `code` is stable for the service layer to report. */
export class OcrLanguageError extends Error {
  readonly code = 'unsupported_language';
  constructor(readonly language: string) {
    super(`OCR language "${language}" is not supported; use one of ${ocrLanguages.join(', ')} (the model reads Chinese and English)`);
    this.name = 'OcrLanguageError';
  }
}

/**
 * What a hint does:
 * - `auto` and `zh`: the model's whole alphabet (Chinese, Latin letters, digits, punctuation);
 * - `en`: recognition may only choose printable ASCII characters, so a Latin glyph is never
 *   read as a look-alike CJK one (`〇`, `一`, `：`). A line that the unconstrained model reads
 *   as mostly non-ASCII characters (Chinese, or Japanese, which it half-reads through kanji) is
 *   dropped, as is a line with no letter or digit; a mixed line keeps its ASCII part
 *   (`：身長1m、体重27kg` → `:1m27kg`).
 * Nothing else (French, Japanese…) is claimed: an unknown language is an {@link OcrLanguageError}.
 */
export function resolveOcrLanguage(hint: string | undefined): OcrLanguage {
  if (hint === undefined || hint.trim() === '') return 'auto';
  const primary = hint.trim().toLowerCase().split(/[-_]/)[0];
  const found = ocrLanguages.find((l) => l === primary);
  if (!found) throw new OcrLanguageError(hint);
  return found;
}
