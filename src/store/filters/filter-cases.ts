/**
 * The one table both filter backends are held to: sift in JavaScript (compileFilter) and SQL
 * over jsonb (filterToSql) must return exactly `ids` for every case. Expected ids follow
 * MongoDB's semantics except where docs/filters.md says otherwise.
 */

export interface FilterCase {
  name: string;
  filter: Record<string, unknown>;
  /** Matching `_id`s, sorted. */
  ids: string[];
}

export interface MalformedFilter {
  name: string;
  filter: unknown;
  /** The operator the FilterError must name ('' for field-name and shape problems). */
  operator: string;
}

/** Strings no document holds, to make a list long. */
const filler = (n: number): string[] => Array.from({ length: n }, (_, i) => `zz-${i}`);

export const filterDocs: Record<string, unknown>[] = [
  { _id: 'd01', name: 'Red Shoe', price: 10, color: 'red', tags: ['shoe', 'red', 'sale'], stock: 5, active: true, meta: { brand: 'acme', size: 42 } },
  { _id: 'd02', name: 'Blue Shirt', price: 25.5, color: 'blue', tags: ['shirt', 'blue'], active: false, meta: { brand: 'zenith', size: 'M' } },
  { _id: 'd03', name: 'red shoe', price: '10', color: 'Red', tags: [], active: 'true', stock: 0 },
  { _id: 'd04', price: null, color: null, tags: null, active: null },
  { _id: 'd05' },
  { _id: 'd06', price: 0, color: 'green', tags: ['sale'], items: [{ color: 'red', qty: 1 }, { color: 'blue', qty: 3 }] },
  { _id: 'd07', price: -3, items: [{ color: 'green', qty: 2 }, { qty: 5 }] },
  { _id: 'd08', items: [], tags: ['a', 'b', 'c'] },
  { _id: 'd09', items: [{ color: 'red', qty: 10, tags: ['x', 'y'] }], meta: { brand: 'acme', dims: { w: 10, h: 20 } } },
  { _id: 'd10', items: { color: 'red', qty: 4 } },
  { _id: 'd11', name: 'naïve café', note: 'line1\nline2' },
  { _id: 'd12', name: 'ÉCLAIR', note: '😀 smile' },
  { _id: 'd13', tags: ['sale', null], price: 7 },
  { _id: 'd14', meta: null, price: 1000000 },
  { _id: 'd15', meta: 'plain', price: 99.99 },
  { _id: 'd16', scores: [1, 5, 9] },
  { _id: 'd17', scores: [10, 20], note: 'ＦＵＬＬ' },
  { _id: 'd18', scores: [], dims: { length: 5, width: 3 } },
  { _id: 'd19', dims: { length: 12 }, active: 1 },
  { _id: 'd20', items: [{ color: 'red', qty: 2 }, { color: 'red', qty: 8 }], note: 'a.b*c' },
  { _id: 'd21', note: 'hi\u2028there', tags: ['Sale', 'SALE'] },
  { _id: 'd22', items: [{ color: 'pink', qty: 1 }, 5], meta: { brand: null } },
  { _id: 'd23', sku: 'AB-1234', point: { x: 1, y: 2 }, pairs: [{ x: 1, y: 2 }, { x: 3 }] },
  { _id: 'd24', sku: 'ab-99', point: { y: 2, x: 1 }, tags: ['red', 'shoe'] },
  { _id: 'd25', sku: 'CD-0001', point: { x: 1 }, tags: ['shoe', 'red'], note: 'line1\r\nline2' },
  // an array among an array's objects, before or after the one that matches (h210)
  { _id: 'd26', mixed: [[0], { q: 1 }] },
  { _id: 'd27', mixed: [{ q: 1 }, [0]] },
  { _id: 'd28', mixed: [{ q: 1 }] },
];

const ALL = filterDocs.map((d) => d._id as string);
const all = (...except: string[]) => ALL.filter((id) => !except.includes(id));

export const filterCases: FilterCase[] = [
  // Equality, type strictness, missing vs null
  { name: 'empty filter matches everything', filter: {}, ids: ALL },
  { name: 'implicit $eq string', filter: { color: 'red' }, ids: ['d01'] },
  { name: '$eq string is case-sensitive', filter: { color: { $eq: 'Red' } }, ids: ['d03'] },
  { name: 'number does not equal numeric string', filter: { price: 10 }, ids: ['d01'] },
  { name: 'numeric string does not equal number', filter: { price: '10' }, ids: ['d03'] },
  { name: 'float equality', filter: { price: 25.5 }, ids: ['d02'] },
  { name: 'boolean true is not 1 or "true"', filter: { active: true }, ids: ['d01'] },
  { name: 'boolean false', filter: { active: false }, ids: ['d02'] },
  { name: 'null matches null and missing', filter: { price: null }, ids: all('d01', 'd02', 'd03', 'd06', 'd07', 'd13', 'd14', 'd15') },
  { name: '$ne null: present and not null', filter: { price: { $ne: null } }, ids: ['d01', 'd02', 'd03', 'd06', 'd07', 'd13', 'd14', 'd15'] },
  { name: '$ne matches missing fields', filter: { color: { $ne: 'red' } }, ids: all('d01') },
  { name: '$exists true includes null values', filter: { color: { $exists: true } }, ids: ['d01', 'd02', 'd03', 'd04', 'd06'] },
  { name: '$exists false', filter: { stock: { $exists: false } }, ids: all('d01', 'd03') },
  { name: '$exists 1 is true', filter: { stock: { $exists: 1 } }, ids: ['d01', 'd03'] },

  // Arrays at the end of a path
  { name: 'scalar matches an array element', filter: { tags: 'sale' }, ids: ['d01', 'd06', 'd13'] },
  { name: 'array equality is exact and ordered', filter: { tags: ['red', 'shoe'] }, ids: ['d24'] },
  { name: '$eq empty array', filter: { tags: { $eq: [] } }, ids: ['d03'] },
  { name: 'null matches an array containing null', filter: { tags: null }, ids: all('d01', 'd02', 'd03', 'd06', 'd08', 'd21', 'd24', 'd25') },
  { name: '$ne on arrays: no element equal', filter: { tags: { $ne: 'sale' } }, ids: all('d01', 'd06', 'd13') },
  { name: '$in on arrays: any element in list', filter: { tags: { $in: ['blue', 'b'] } }, ids: ['d02', 'd08'] },
  { name: '$in with a whole array', filter: { tags: { $in: [['sale'], 'zzz'] } }, ids: ['d06'] },
  { name: '$in with null matches missing', filter: { color: { $in: [null, 'green'] } }, ids: all('d01', 'd02', 'd03') },
  { name: '$in empty list matches nothing', filter: { color: { $in: [] } }, ids: [] },
  // lists longer than IN_LIST_JOIN (32) take PostgreSQL's set form: the same answers as the short lists above
  { name: 'a long $in on arrays: any element in list', filter: { tags: { $in: ['blue', 'b', ...filler(40)] } }, ids: ['d02', 'd08'] },
  { name: 'a long $in with a whole array and null', filter: { tags: { $in: [['sale'], null, ...filler(40)] } }, ids: all('d01', 'd02', 'd03', 'd08', 'd21', 'd24', 'd25') },
  { name: 'a long $in of numbers: 10 and 10.0 alike, "10" not', filter: { price: { $in: [10.0, 7, ...filler(40)] } }, ids: ['d01', 'd13'] },
  { name: 'a long $in along a path through an array', filter: { 'items.color': { $in: ['green', ...filler(40)] } }, ids: ['d07'] },
  { name: 'a long $nin', filter: { color: { $nin: ['red', 'blue', 'green', null, ...filler(40)] } }, ids: ['d03'] },
  { name: 'a short $in through an array of objects to an array', filter: { 'items.tags': { $in: ['y'] } }, ids: ['d09'] },
  { name: 'a long $in through an array of objects to an array', filter: { 'items.tags': { $in: ['y', ...filler(40)] } }, ids: ['d09'] },
  { name: 'a long $nin through an array of objects to an array', filter: { 'items.tags': { $nin: ['x', ...filler(40)] } }, ids: all('d09') },
  { name: 'a long $in of _id', filter: { _id: { $in: ['d05', 'd12', ...filler(2000)] } }, ids: ['d05', 'd12'] },
  { name: '$nin matches missing fields', filter: { color: { $nin: ['red', 'blue', 'green'] } }, ids: all('d01', 'd02', 'd06') },
  { name: '$nin on arrays', filter: { tags: { $nin: ['sale', 'red'] } }, ids: all('d01', 'd06', 'd13', 'd24', 'd25') },
  { name: '$nin empty list matches everything', filter: { color: { $nin: [] } }, ids: ALL },
  { name: '$all', filter: { tags: { $all: ['red', 'shoe'] } }, ids: ['d01', 'd24', 'd25'] },
  { name: '$all single', filter: { tags: { $all: ['sale'] } }, ids: ['d01', 'd06', 'd13'] },
  { name: '$all on a scalar field', filter: { color: { $all: ['red'] } }, ids: ['d01'] },
  { name: '$size', filter: { tags: { $size: 2 } }, ids: ['d02', 'd13', 'd21', 'd24', 'd25'] },
  { name: '$size 0', filter: { tags: { $size: 0 } }, ids: ['d03'] },
  { name: '$size never matches non-arrays', filter: { color: { $size: 1 } }, ids: [] },
  { name: '$not $size', filter: { scores: { $not: { $size: 0 } } }, ids: all('d18') },

  // Ranges and type bracketing
  { name: '$gt number ignores strings and null', filter: { price: { $gt: 5 } }, ids: ['d01', 'd02', 'd13', 'd14', 'd15'] },
  { name: '$gte', filter: { price: { $gte: 10 } }, ids: ['d01', 'd02', 'd14', 'd15'] },
  { name: '$lt with negatives and zero', filter: { price: { $lt: 1 } }, ids: ['d06', 'd07'] },
  { name: '$lte and $gte range', filter: { price: { $gte: 0, $lte: 10 } }, ids: ['d01', 'd06', 'd13'] },
  { name: '$gt string: code point order, only strings', filter: { color: { $gt: 'blue' } }, ids: ['d01', 'd06'] },
  { name: '$lt string: uppercase sorts first', filter: { color: { $lt: 'a' } }, ids: ['d03'] },
  { name: '$gt string beyond the BMP sorts by code point', filter: { note: { $gt: '\uffff' } }, ids: ['d12'] },
  { name: '$gte string on non-ASCII', filter: { name: { $gte: 'n' } }, ids: ['d03', 'd11', 'd12'] },
  { name: '$gt false matches true only', filter: { active: { $gt: false } }, ids: ['d01'] },
  { name: '$lte true matches booleans only', filter: { active: { $lte: true } }, ids: ['d01', 'd02'] },
  { name: 'range over array elements', filter: { scores: { $gt: 8, $lt: 11 } }, ids: ['d16', 'd17'] },
  { name: '$not $gt matches missing and other types', filter: { price: { $not: { $gt: 5 } } }, ids: all('d01', 'd02', 'd13', 'd14', 'd15') },

  // Dotted paths
  { name: 'dotted path into an object', filter: { 'meta.brand': 'acme' }, ids: ['d01', 'd09'] },
  { name: 'dotted path two levels', filter: { 'meta.dims.h': { $gte: 20 } }, ids: ['d09'] },
  { name: 'dotted path into an array of objects', filter: { 'items.color': 'red' }, ids: ['d06', 'd09', 'd10', 'd20'] },
  { name: 'dotted path into arrays at two levels', filter: { 'items.tags': 'y' }, ids: ['d09'] },
  { name: 'dotted null: missing anywhere along the path', filter: { 'meta.brand': null }, ids: all('d01', 'd02', 'd09') },
  { name: 'dotted null through array elements; empty arrays do not match', filter: { 'items.color': null }, ids: all('d06', 'd08', 'd09', 'd10', 'd20') },
  { name: 'dotted $exists through arrays', filter: { 'items.color': { $exists: true } }, ids: ['d06', 'd07', 'd09', 'd10', 'd20', 'd22'] },
  { name: 'dotted $exists false', filter: { 'items.qty': { $exists: false } }, ids: all('d06', 'd07', 'd09', 'd10', 'd20', 'd22') },
  { name: 'dotted $ne', filter: { 'items.color': { $ne: 'red' } }, ids: all('d06', 'd09', 'd10', 'd20') },
  { name: 'field named length in an object', filter: { 'dims.length': { $gt: 4 } }, ids: ['d18', 'd19'] },
  // an array's or a string's own length and methods are no fields (MongoDB, PostgreSQL): only an object's key answers
  { name: 'length through an array of strings', filter: { 'tags.length': 2 }, ids: [] },
  { name: 'length through an array of objects', filter: { 'items.length': { $exists: true } }, ids: [] },
  { name: 'length of a string', filter: { 'name.length': { $gte: 5 } }, ids: [] },
  { name: 'length of _id', filter: { '_id.length': 3 }, ids: [] },
  { name: 'a string method', filter: { 'name.toUpperCase': { $exists: true } }, ids: [] },
  { name: 'a number method', filter: { 'price.toFixed': { $exists: false } }, ids: ALL },
  { name: 'field named length beside an array length', filter: { $or: [{ 'dims.length': 5 }, { 'scores.length': 2 }] }, ids: ['d18'] },
  { name: 'object literal with a length key', filter: { dims: { $in: [{ length: 12 }] } }, ids: ['d19'] },
  { name: '$elemMatch on a key named length', filter: { pairs: { $elemMatch: { length: { $exists: false }, x: 3 } } }, ids: ['d23'] },
  { name: 'dotted range across elements is not per element', filter: { 'items.qty': { $gt: 2, $lt: 4 } }, ids: ['d06', 'd07', 'd20'] },

  // $elemMatch
  { name: '$elemMatch on objects: one element meets all', filter: { items: { $elemMatch: { color: 'red', qty: { $gt: 2 } } } }, ids: ['d09', 'd20'] },
  { name: '$elemMatch on scalars', filter: { scores: { $elemMatch: { $gt: 8, $lt: 11 } } }, ids: ['d16', 'd17'] },
  { name: '$elemMatch ignores non-arrays', filter: { items: { $elemMatch: { color: 'red' } } }, ids: ['d06', 'd09', 'd20'] },
  // $all of $elemMatch items: each item met by some element (MongoDB), run as an $and of $elemMatch
  { name: '$all of $elemMatch items: each met by some element', filter: { items: { $all: [{ $elemMatch: { color: 'red' } }, { $elemMatch: { color: 'blue' } }] } }, ids: ['d06'] },
  { name: '$all of $elemMatch items with several conditions each', filter: { items: { $all: [{ $elemMatch: { color: 'red', qty: { $gt: 5 } } }, { $elemMatch: { qty: { $lt: 3 } } }] } }, ids: ['d20'] },
  { name: '$all of $elemMatch beside another operator', filter: { items: { $all: [{ $elemMatch: { color: 'red' } }], $size: 2 } }, ids: ['d06', 'd20'] },
  { name: '$all of $elemMatch inside $or', filter: { $or: [{ items: { $all: [{ $elemMatch: { color: 'green' } }] } }, { color: 'blue' }] }, ids: ['d02', 'd07'] },
  { name: '$all of $elemMatch inside an $elemMatch document', filter: { items: { $elemMatch: { tags: { $all: [{ $elemMatch: { $eq: 'y' } }] } } } }, ids: ['d09'] },
  { name: '$elemMatch with null field', filter: { items: { $elemMatch: { color: null } } }, ids: ['d07', 'd22'] },
  { name: '$elemMatch with $or inside', filter: { items: { $elemMatch: { $or: [{ color: 'green' }, { qty: { $gte: 8 } }] } } }, ids: ['d07', 'd09', 'd20'] },
  { name: '$elemMatch on a dotted path', filter: { 'items.tags': { $elemMatch: { $eq: 'x' } } }, ids: ['d09'] },
  { name: '$elemMatch with $regex', filter: { tags: { $elemMatch: { $regex: '^s', $options: 'i' } } }, ids: ['d01', 'd02', 'd06', 'd13', 'd21', 'd24', 'd25'] },
  { name: '$elemMatch on objects beside an inner array (h210)', filter: { mixed: { $elemMatch: { q: 1 } } }, ids: ['d26', 'd27', 'd28'] },
  { name: '$elemMatch with an operator beside an inner array', filter: { mixed: { $elemMatch: { q: { $gte: 1 } } } }, ids: ['d26', 'd27', 'd28'] },
  { name: '$elemMatch nested', filter: { items: { $elemMatch: { tags: { $elemMatch: { $in: ['y'] } } } } }, ids: ['d09'] },
  { name: '$not $elemMatch', filter: { items: { $not: { $elemMatch: { color: 'red' } } } }, ids: all('d06', 'd09', 'd20') },

  // Object equality
  { name: 'object equality ignores key order', filter: { point: { x: 1, y: 2 } }, ids: ['d23', 'd24'] },
  { name: 'object equality is exact (no extra keys)', filter: { point: { x: 1 } }, ids: ['d25'] },
  { name: 'object equality against array elements', filter: { pairs: { x: 3 } }, ids: ['d23'] },
  { name: '$in with an object', filter: { point: { $in: [{ x: 1 }, 'nothing'] } }, ids: ['d25'] },

  // Regular expressions
  { name: '$regex', filter: { name: { $regex: 'shoe' } }, ids: ['d03'] },
  { name: '$regex with i (ASCII)', filter: { name: { $regex: '^red', $options: 'i' } }, ids: ['d01', 'd03'] },
  { name: '$regex i folds non-ASCII letters (h311)', filter: { name: { $regex: 'éclair', $options: 'i' } }, ids: ['d12'] },
  { name: '$regex i folds a class of non-ASCII letters', filter: { name: { $regex: '^[é]CLAIR$', $options: 'i' } }, ids: ['d12'] },
  { name: '$regex on array elements, not other types', filter: { tags: { $regex: '^s' } }, ids: ['d01', 'd02', 'd06', 'd13', 'd24', 'd25'] },
  { name: '$regex ignores numbers', filter: { price: { $regex: '1' } }, ids: ['d03'] },
  { name: '$regex dot does not match line breaks', filter: { note: { $regex: '^hi.there$' } }, ids: [] },
  { name: '$regex s: dot matches line breaks', filter: { note: { $regex: '^hi.there$', $options: 's' } }, ids: ['d21'] },
  { name: '$regex $ is the end of the string without m', filter: { note: { $regex: 'line1$' } }, ids: [] },
  { name: '$regex m: ^ and $ at every line break', filter: { note: { $regex: '^line2$', $options: 'm' } }, ids: ['d11', 'd25'] },
  { name: '$regex m: U+2028 is a line break', filter: { note: { $regex: '^there', $options: 'm' } }, ids: ['d21'] },
  { name: '$regex negated class matches newline', filter: { note: { $regex: 'line1[^x]line2' } }, ids: ['d11'] },
  { name: '$regex x: whitespace and comments ignored', filter: { sku: { $regex: '^ [A-Z]{2} - \\d{4} $ # SKU', $options: 'x' } }, ids: ['d23', 'd25'] },
  { name: '$regex \\d \\w classes are ASCII', filter: { name: { $regex: '^\\w+\\s\\w+$' } }, ids: ['d01', 'd02', 'd03'] },
  { name: '$regex escaped metacharacters', filter: { note: { $regex: 'a\\.b\\*c' } }, ids: ['d20'] },
  { name: '$regex class range with i', filter: { sku: { $regex: '^[a-b]{2}-', $options: 'i' } }, ids: ['d23', 'd24'] },
  { name: '$regex astral character as one character', filter: { note: { $regex: '^.\\ssmile' } }, ids: ['d12'] },
  { name: '$regex alternation and groups', filter: { color: { $regex: '^(?:gr|bl)(een|ue)$' } }, ids: ['d02', 'd06'] },
  { name: '$regex bounded repetition', filter: { sku: { $regex: '^[A-Z]{2}-[0-9]{3,4}$' } }, ids: ['d23', 'd25'] },
  { name: '$not $regex matches missing and non-strings', filter: { color: { $not: { $regex: '^r' } } }, ids: all('d01') },
  { name: '$regex \\u escape', filter: { name: { $regex: 'caf\\u00e9' } }, ids: ['d11'] },

  // Logical operators and combinations
  { name: 'several fields are ANDed', filter: { color: 'red', price: 10 }, ids: ['d01'] },
  { name: '$and', filter: { $and: [{ tags: 'sale' }, { price: { $lt: 8 } }] }, ids: ['d06', 'd13'] },
  { name: '$or', filter: { $or: [{ color: 'blue' }, { 'items.color': 'green' }] }, ids: ['d02', 'd07'] },
  { name: '$nor', filter: { $nor: [{ price: { $exists: true } }, { tags: { $exists: true } }] }, ids: ['d05', 'd09', 'd10', 'd11', 'd12', 'd16', 'd17', 'd18', 'd19', 'd20', 'd22', 'd23', 'd26', 'd27', 'd28'] },
  { name: '$or inside $and with fields', filter: { $and: [{ $or: [{ color: 'red' }, { color: 'Red' }] }, { $or: [{ stock: 0 }, { active: true }] }], name: { $exists: true } }, ids: ['d01', 'd03'] },
  { name: '$not with several operators', filter: { price: { $not: { $gte: 0, $lte: 10 } } }, ids: all('d01', 'd06', 'd13') },
  { name: '$ne and $exists together', filter: { meta: { $exists: true, $ne: null } }, ids: ['d01', 'd02', 'd09', 'd15', 'd22'] },
  { name: '$eq with an operator-free object inside $or', filter: { $or: [{ 'meta.dims': { w: 10, h: 20 } }, { dims: { length: 12 } }] }, ids: ['d09', 'd19'] },
  { name: 'scalar element inside an array on a dotted path counts as missing', filter: { 'items.qty': null }, ids: all('d06', 'd07', 'd08', 'd09', 'd10', 'd20') },
  { name: 'null inside an array along a path', filter: { 'meta.brand': { $in: [null] }, price: { $exists: true } }, ids: ['d03', 'd04', 'd06', 'd07', 'd13', 'd14', 'd15'] },
];

const deep = (levels: number): Record<string, unknown> => (levels === 0 ? { a: 1 } : { $and: [deep(levels - 1)] });

export const malformedFilters: MalformedFilter[] = [
  { name: 'unknown operator', filter: { price: { $foo: 1 } }, operator: '$foo' },
  { name: '$where', filter: { $where: 'this.a > 1' }, operator: '$where' },
  { name: '$expr', filter: { $expr: { $gt: ['$a', 1] } }, operator: '$expr' },
  { name: '$function', filter: { a: { $function: { body: 'return 1', args: [], lang: 'js' } } }, operator: '$function' },
  { name: '$mod is not supported', filter: { a: { $mod: [2, 0] } }, operator: '$mod' },
  { name: '$type is not supported', filter: { a: { $type: 'string' } }, operator: '$type' },
  { name: '$in needs an array', filter: { color: { $in: 'red' } }, operator: '$in' },
  { name: '$nin needs an array', filter: { color: { $nin: 5 } }, operator: '$nin' },
  { name: '$in with an operator inside', filter: { color: { $in: [{ $gt: 1 }] } }, operator: '$in' },
  { name: '$gt with an array', filter: { price: { $gt: [1] } }, operator: '$gt' },
  { name: '$lte with null', filter: { price: { $lte: null } }, operator: '$lte' },
  { name: '$lt with an object', filter: { price: { $lt: { a: 1 } } }, operator: '$lt' },
  { name: '$and empty', filter: { $and: [] }, operator: '$and' },
  { name: '$or not an array', filter: { $or: { a: 1 } }, operator: '$or' },
  { name: '$nor with a non-object', filter: { $nor: [1] }, operator: '$nor' },
  { name: '$and on a field', filter: { a: { $and: [{ b: 1 }] } }, operator: '$and' },
  { name: '$regex not a string', filter: { a: { $regex: 5 } }, operator: '$regex' },
  { name: '$regex unbalanced', filter: { a: { $regex: '(a' } }, operator: '$regex' },
  { name: '$regex backreference', filter: { a: { $regex: '(a)\\1' } }, operator: '$regex' },
  { name: '$regex word boundary', filter: { a: { $regex: '\\bword' } }, operator: '$regex' },
  { name: '$regex lookahead', filter: { a: { $regex: 'a(?=b)' } }, operator: '$regex' },
  { name: '$regex nested quantifier', filter: { a: { $regex: '(a+)+$' } }, operator: '$regex' },
  { name: '$regex too long', filter: { a: { $regex: 'a'.repeat(513) } }, operator: '$regex' },
  { name: '$regex repetition above 255', filter: { a: { $regex: 'a{300}' } }, operator: '$regex' },
  { name: '$regex too large once repeats are written out', filter: { a: { $regex: '(?:abcdefghijklmnopqrstu){255}' } }, operator: '$regex' },
  { name: '$options unknown flag', filter: { a: { $regex: 'a', $options: 'g' } }, operator: '$options' },
  { name: '$options without $regex', filter: { a: { $options: 'i' } }, operator: '$options' },
  { name: '$size negative', filter: { a: { $size: -1 } }, operator: '$size' },
  { name: '$size fractional', filter: { a: { $size: 1.5 } }, operator: '$size' },
  { name: '$size over 32 bits', filter: { a: { $size: 2_147_483_648 } }, operator: '$size' },
  { name: '$size 1e300', filter: { a: { $size: 1e300 } }, operator: '$size' },
  { name: '$all empty', filter: { a: { $all: [] } }, operator: '$all' },
  { name: '$all not an array', filter: { a: { $all: 'x' } }, operator: '$all' },
  { name: '$all mixing $elemMatch items and values', filter: { items: { $all: [{ $elemMatch: { color: 'red' } }, 'x'] } }, operator: '$all' },
  { name: '$all of $elemMatch inside $not', filter: { items: { $not: { $all: [{ $elemMatch: { color: 'red' } }] } } }, operator: '$all' },
  { name: '$elemMatch not an object', filter: { a: { $elemMatch: 5 } }, operator: '$elemMatch' },
  { name: '$elemMatch empty', filter: { a: { $elemMatch: {} } }, operator: '$elemMatch' },
  { name: '$not with a plain value', filter: { a: { $not: 5 } }, operator: '$not' },
  { name: '$not at top level', filter: { $not: { a: 1 } }, operator: '$not' },
  { name: '$exists with a string', filter: { a: { $exists: 'yes' } }, operator: '$exists' },
  { name: 'operators mixed with fields', filter: { a: { $gt: 1, b: 2 } }, operator: '$gt' },
  { name: 'value operator at top level', filter: { $gt: 5 }, operator: '$gt' },
  { name: 'nested too deep', filter: deep(21), operator: '$and' },
  { name: 'too many nodes', filter: { $or: Array.from({ length: 501 }, (_, i) => ({ [`f${i}`]: i })) }, operator: '$eq' },
  { name: 'too many listed values', filter: { a: { $in: Array.from({ length: 6000 }, (_, i) => i) }, b: { $nin: Array.from({ length: 4001 }, (_, i) => `x${i}`) } }, operator: '$nin' },
  { name: 'filter not an object', filter: ['a'], operator: '' },
  { name: 'empty path segment', filter: { 'a..b': 1 }, operator: '' },
  { name: 'numeric path segment', filter: { 'tags.0': 'x' }, operator: '' },
  { name: 'prototype field name', filter: { constructor: 1 }, operator: '' },
  { name: '__proto__ field name', filter: JSON.parse('{"__proto__": {"a": 1}}') as unknown, operator: '' },
];
