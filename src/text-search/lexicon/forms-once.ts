import type { LanguageWords } from './concepts.ts';
import { foldText, wordsOf } from '../text-fold.ts';

/** A language's words with forms that fold to one (`czerwona` and `czerwoną`, `män` and `man`) kept once, as the lexicon test asks. */
export function formsOnce(written: LanguageWords): LanguageWords {
  const once = (forms: readonly string[]): string[] => {
    const seen = new Set<string>();
    const key = (f: string) => wordsOf(foldText(f)).join(' ');
    return forms.filter((f) => !seen.has(key(f)) && seen.add(key(f)));
  };
  const each = <K extends string>(m: Readonly<Record<K, readonly string[]>>): Record<K, string[]> =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, once(v as readonly string[])])) as Record<K, string[]>;
  return { objects: each(written.objects), colors: each(written.colors), items: each(written.items), people: each(written.people) };
}
