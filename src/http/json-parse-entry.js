// Entry of the thread that parses large JSON bodies. Like the vision workers' entry, it registers
// tsx's loader itself (a thread started under vitest does not inherit it) before loading TypeScript.
import { register } from 'tsx/esm/api';

register();
const { parseAndSplitBody, parseJsonBody } = await import('./json-body.ts');

export default parseAndSplitBody;
/** A body that is no batch (images inline), parsed and checked whole. */
export const whole = parseJsonBody;
