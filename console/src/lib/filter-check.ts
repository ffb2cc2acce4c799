/**
 * What the console can say about a filter before sending it: JSON that parses, an object, and only
 * the operators the server accepts (docs/filters.md). The server still decides; its 400 `detail`
 * is shown as well.
 */
const operators = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$all', '$size', '$elemMatch', '$regex', '$options', '$and', '$or', '$nor', '$not']);
const logical = new Set(['$and', '$or', '$nor']);

export type FilterCheck = { ok: true; filter: Record<string, unknown> | undefined } | { ok: false; message: string };

function walk(value: unknown, path: string, problems: string[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${path}[${i}]`, problems));
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const [key, v] of Object.entries(value)) {
    const where = path ? `${path}.${key}` : key;
    if (key.startsWith('$')) {
      if (!operators.has(key)) problems.push(`${where}: ${key} is not an operator the server accepts (it takes ${[...operators].join(' ')})`);
      else if (logical.has(key) && !Array.isArray(v)) problems.push(`${where}: ${key} takes an array of filters`);
      else if ((key === '$in' || key === '$nin' || key === '$all') && !Array.isArray(v)) problems.push(`${where}: ${key} takes an array`);
    }
    walk(v, where, problems);
  }
}

export function checkFilter(text: string): FilterCheck {
  if (!text.trim()) return { ok: true, filter: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `Not JSON: ${(err as Error).message}. Keys and text need double quotes, as {"color": {"$in": ["red", "blue"]}}.` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, message: 'A filter is a JSON object, such as {"price": {"$lt": 50}}.' };
  const problems: string[] = [];
  walk(parsed, '', problems);
  if (problems.length) return { ok: false, message: problems.join('; ') };
  return { ok: true, filter: parsed as Record<string, unknown> };
}
