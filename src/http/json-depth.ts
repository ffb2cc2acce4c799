/**
 * Nesting depth a JSON body may have. V8 parses any depth without recursion, but validation,
 * serialisation and the stores recurse: a value 5,000 deep overflowed the stack in each of them.
 * Real bodies (grading, meta_data, filters) stay under ten levels.
 */
export const maxJsonDepth = 32;

/** Whether `value` nests objects or arrays deeper than `max` levels; iterative, so any depth is safe. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

// With the u flag a surrogate pair is one code point, so only a half of one matches.
const loneSurrogate = /[\uD800-\uDFFF]/u;

/** Whether any string or key in `value` holds half of a UTF-16 surrogate pair; iterative. */
export function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (loneSurrogate.test(node)) return true;
    } else if (Array.isArray(node)) {
      // one at a time: spreading an array of 100,000 items into push() overflows the call stack
      for (const item of node) stack.push(item);
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (loneSurrogate.test(k)) return true;
        stack.push(v);
      }
    }
  }
  return false;
}
