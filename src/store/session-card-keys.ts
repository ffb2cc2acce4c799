/**
 * A collector number as it names a card: every run of digits without its leading zeros, so
 * "025/165" and "25/165" are one card ("0" stays "0").
 */
export function foldCardNumber(number: string): string {
  return number.replace(/(^|[^0-9])0+(?=[0-9])/g, '$1');
}

/**
 * A row's card key (`kind|name|set|number`, see `cardKey`) as stored by a release before migration
 * 024, made as this one makes it: in compatibility form (NFKC: full-width ＳＶ２ａ and ０２５, half-width
 * ﾋﾟｶﾁｭｳ, as Japanese input methods type them, are SV2a, 025 and ピカチュウ) and its number folded.
 * Summaries count distinct keys, so the same card sent once as "025" and once as "25" (021), or as
 * "０２５" (024), counted twice.
 */
export function refoldCardKey(key: string): string {
  const cut = key.lastIndexOf('|');
  return key.slice(0, cut + 1).normalize('NFKC') + foldCardNumber(key.slice(cut + 1).normalize('NFKC'));
}

/** `refoldCardKey` of a column in PostgreSQL (the same result; `card-keys.test.ts` compares them). */
export const pgRefoldCardKey = (column: string): string => {
  const number = `substring(${column} from '[^|]*$')`;
  return `normalize(left(${column}, length(${column}) - length(${number})), NFKC) || regexp_replace(normalize(${number}, NFKC), '(^|[^0-9])0+([0-9])', '\\1\\2', 'g')`;
};
