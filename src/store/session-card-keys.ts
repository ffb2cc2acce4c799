/**
 * A collector number as it names a card: every run of digits without its leading zeros, so
 * "025/165" and "25/165" are one card ("0" stays "0").
 */
export function foldCardNumber(number: string): string {
  return number.replace(/(^|[^0-9])0+(?=[0-9])/g, '$1');
}

/**
 * A row's card key (`kind|name|set|number`, see `cardKey`) as stored by a release before migration
 * 021, made as this one makes it: composed (NFC) and its number folded. Summaries count distinct
 * keys, so the same card sent once as "025" and once as "25" counted twice.
 */
export function refoldCardKey(key: string): string {
  const cut = key.lastIndexOf('|');
  return key.slice(0, cut + 1).normalize('NFC') + foldCardNumber(key.slice(cut + 1).normalize('NFC'));
}

/** `refoldCardKey` of a column in PostgreSQL (the same result; `card-keys.test.ts` compares them). */
export const pgRefoldCardKey = (column: string): string => {
  const number = `substring(${column} from '[^|]*$')`;
  return `normalize(left(${column}, length(${column}) - length(${number})), NFC) || regexp_replace(normalize(${number}, NFC), '(^|[^0-9])0+([0-9])', '\\1\\2', 'g')`;
};
