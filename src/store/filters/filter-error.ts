/**
 * A filter the server refuses. The HTTP layer turns it into a 400; `operator` is the operator
 * whose operand is wrong (`$in`, `$regex`, …), or '' when the problem is a field name or the
 * filter's overall shape, and `path` is the dotted field it applies to, when there is one.
 */
export class FilterError extends Error {
  override readonly name = 'FilterError';
  readonly operator: string;
  readonly path: string | undefined;

  constructor(operator: string, problem: string, path?: string) {
    const where = path === undefined || path === '' ? '' : ` at ${JSON.stringify(path)}`;
    super(operator ? `${operator}: ${problem}${where}` : `${problem}${where}`);
    this.operator = operator;
    this.path = path;
  }
}
