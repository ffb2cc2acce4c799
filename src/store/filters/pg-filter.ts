import { sql, type RawBuilder } from 'kysely';
import { isOperatorObject, isValueLevel, splitPath, translateRegex, validateFilter, type MongoFilter } from './mongo-filter.ts';

/*
 * MongoDB filters as SQL over a jsonb column, matching what sift answers in JavaScript (the
 * shared cases in filter-cases.ts hold both to the same ids).
 *
 * Paths are walked by lax-mode jsonpath, which steps into the elements of an array met halfway
 * along a path and whose `?` filters and comparisons look inside an array found at the end:
 * the same "any element" reading MongoDB gives `{tags: 'x'}`. Scalar comparisons therefore stay
 * inside one jsonb_path_exists call; comparisons against whole arrays or objects, $size and
 * $elemMatch need the array itself, which lax filters never see, so they go through
 * jsonb_path_query in a subquery. jsonpath compares only values of the same type (so `$gt: 5`
 * never matches "6") and orders strings by code point, like the JavaScript side.
 *
 * Everything from the request is a bound parameter: each jsonpath is one text parameter (field
 * names and regex patterns inside it are quoted jsonpath string literals), values travel in the
 * `vars` jsonb parameter.
 */

type Sql = RawBuilder<unknown>;

interface Context {
  aliases: number;
}

/** A jsonpath string literal: backslash and quote escaped, everything below U+0020 as \uXXXX. */
function jsonpathString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    out += ch === '\\' || ch === '"' ? `\\${ch}` : c < 0x20 || c === 0x7f ? `\\u${c.toString(16).padStart(4, '0')}` : ch;
  }
  return `${out}"`;
}

const jsonpath = (segments: string[]) => `$${segments.map((s) => `.${jsonpathString(s)}`).join('')}`;

/** Scalars an `$in` lists beyond which they are joined as a set (docs/filters.md). */
export const IN_LIST_JOIN = 32;

const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

const and = (parts: Sql[]): Sql => (parts.length === 0 ? sql`true` : parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` AND `)})`);
const or = (parts: Sql[]): Sql => (parts.length === 0 ? sql`false` : parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` OR `)})`);
const not = (part: Sql): Sql => sql`(NOT ${part})`;

/** A scalar as a jsonpath literal: a string quoted as field names are, a number or boolean as JSON writes it. */
const jsonpathLiteral = (v: string | number | boolean): string => (typeof v === 'string' ? jsonpathString(v) : JSON.stringify(v));

/**
 * `root @? path`: the same lax-mode test as `jsonb_path_exists(root, path)`, written as the operator the collection's GIN
 * index (`jsonb_path_ops`, migration 045) serves for `accessors == constant` clauses, so an equality or `$in` filter
 * reads the records it names rather than every record of the collection (h348: a filter naming one SKU of 100,000 read
 * them all). The constants are written into the path, which is itself one bound parameter.
 */
function pathMatchesIndexed(root: Sql, path: string): Sql {
  return sql`(${root} @? ${path}::jsonpath)`;
}

function pathExists(root: Sql, path: string, vars?: Record<string, unknown>): Sql {
  return vars
    ? sql`jsonb_path_exists(${root}, ${path}::jsonpath, ${JSON.stringify(vars)}::jsonb)`
    : sql`jsonb_path_exists(${root}, ${path}::jsonpath)`;
}

/**
 * sift's "missing" along a path: the first field absent, or some value before the last step
 * that has no next field (a scalar or null, an object without it, or such an array element).
 */
function missingPredicate(segments: string[]): string {
  if (segments.length === 0) return '';
  const parts = [`!exists(${jsonpath(segments.slice(0, 1))})`];
  for (let i = 1; i < segments.length; i++) {
    parts.push(`exists(${jsonpath(segments.slice(0, i))} ? (!exists(@.${jsonpathString(segments[i]!)})))`);
  }
  return parts.join(' || ');
}

class Translator {
  constructor(private readonly ctx: Context) {}

  private alias(prefix: string): Sql {
    return sql.raw(`${prefix}${this.ctx.aliases++}`);
  }

  document(query: Record<string, unknown>, root: Sql): Sql {
    const parts: Sql[] = [];
    for (const [key, value] of Object.entries(query)) {
      if (key === '$and' || key === '$or' || key === '$nor') {
        const subs = (value as Record<string, unknown>[]).map((q) => this.document(q, root));
        parts.push(key === '$and' ? and(subs) : key === '$or' ? or(subs) : not(or(subs)));
      } else {
        parts.push(this.field(splitPath(key), value, root));
      }
    }
    return and(parts);
  }

  field(segments: string[], value: unknown, root: Sql): Sql {
    if (!isOperatorObject(value)) return this.eq(segments, value, root);
    const parts: Sql[] = [];
    const path = jsonpath(segments);
    for (const [op, operand] of Object.entries(value)) {
      switch (op) {
        case '$eq':
          parts.push(this.eq(segments, operand, root));
          break;
        case '$ne':
          parts.push(not(this.eq(segments, operand, root)));
          break;
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte': {
          const cmp = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
          parts.push(pathExists(root, `${path} ? (@ ${cmp} $v)`, { v: operand }));
          break;
        }
        case '$in':
          parts.push(this.in(segments, operand as unknown[], root));
          break;
        case '$nin':
          parts.push(not(this.in(segments, operand as unknown[], root)));
          break;
        case '$all':
          parts.push(and((operand as unknown[]).map((v) => this.eq(segments, v, root))));
          break;
        case '$exists': {
          const exists = segments.length ? pathExists(root, path) : sql`true`;
          parts.push(operand ? exists : not(exists));
          break;
        }
        case '$size': {
          const c = this.alias('c');
          parts.push(sql`EXISTS (SELECT 1 FROM jsonb_path_query(${root}, ${path}::jsonpath) AS ${c}(v) WHERE CASE WHEN jsonb_typeof(${c}.v) = 'array' THEN jsonb_array_length(${c}.v) = ${operand as number} ELSE false END)`);
          break;
        }
        case '$regex': {
          const { pg } = translateRegex(operand as string, value.$options);
          parts.push(pathExists(root, `${path} ? (@ like_regex ${jsonpathString(pg)} flag "s")`));
          break;
        }
        case '$options':
          break;
        case '$elemMatch': {
          const c = this.alias('c');
          const e = this.alias('e');
          const element = sql`${e}.x`;
          const q = operand as Record<string, unknown>;
          const inner = isValueLevel(q) ? this.field([], q, element) : this.document(q, element);
          parts.push(sql`EXISTS (SELECT 1 FROM jsonb_path_query(${root}, ${path}::jsonpath) AS ${c}(v) CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(${c}.v) = 'array' THEN ${c}.v ELSE '[]'::jsonb END) AS ${e}(x) WHERE ${inner})`);
          break;
        }
        case '$not':
          parts.push(not(this.field(segments, operand, root)));
          break;
        default:
          // validateFilter has refused anything else.
          throw new Error(`unexpected operator ${op}`);
      }
    }
    return and(parts);
  }

  /** Equality as MongoDB reads it: any value at the path, or any element of an array there. */
  eq(segments: string[], v: unknown, root: Sql): Sql {
    const path = jsonpath(segments);
    if (v === null) {
      const missing = missingPredicate(segments);
      return sql`jsonb_path_match(${root}, ${`exists(${path} ? (@ == null))${missing ? ` || ${missing}` : ''}`}::jsonpath)`;
    }
    if (isScalar(v)) return pathMatchesIndexed(root, `${path} ? (@ == ${jsonpathLiteral(v)})`);
    // Arrays and objects: lax jsonpath compares scalars only, so compare jsonb values in SQL,
    // both the value itself (`$.p`) and, for an array, its elements (`$.p[*]`).
    const json = JSON.stringify(v);
    const c = this.alias('c');
    const d = this.alias('c');
    return sql`(EXISTS (SELECT 1 FROM jsonb_path_query(${root}, ${path}::jsonpath) AS ${c}(v) WHERE ${c}.v = ${json}::jsonb) OR EXISTS (SELECT 1 FROM jsonb_path_query(${root}, ${`${path}[*]`}::jsonpath) AS ${d}(v) WHERE ${d}.v = ${json}::jsonb))`;
  }

  in(segments: string[], values: unknown[], root: Sql): Sql {
    const scalars = values.filter(isScalar);
    const parts: Sql[] = [];
    if (scalars.length > IN_LIST_JOIN) {
      // a long list is a hashed set the field's values are looked up in, not a test of each value on every row
      const c = this.alias('c');
      parts.push(sql`EXISTS (SELECT 1 FROM jsonb_path_query(${root}, ${`${jsonpath(segments)}[*][*]`}::jsonpath) AS ${c}(v) WHERE ${c}.v IN (SELECT jsonb_array_elements(${JSON.stringify(scalars)}::jsonb)))`);
    } else if (scalars.length) {
      const test = scalars.map((v) => `@ == ${jsonpathLiteral(v)}`).join(' || ');
      parts.push(pathMatchesIndexed(root, `${jsonpath(segments)} ? (${test})`));
    }
    if (values.includes(null)) parts.push(this.eq(segments, null, root));
    for (const v of values) if (v !== null && !isScalar(v)) parts.push(this.eq(segments, v, root));
    return or(parts);
  }
}

/**
 * A WHERE fragment for `filter` over the jsonb column `column` (default `data_b`; may be qualified,
 * `r.data_b`). Throws FilterError for a malformed filter.
 */
export function filterToSql(filter: MongoFilter, column = 'data_b'): RawBuilder<boolean> {
  const valid = validateFilter(filter);
  return new Translator({ aliases: 0 }).document(valid, sql.ref(column)) as RawBuilder<boolean>;
}
