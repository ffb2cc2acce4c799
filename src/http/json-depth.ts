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
