/**
 * Flows (`type: flows`): an administrator's named chain of the server's own synchronous
 * endpoints, run over each record of an asynchronous request. docs/flows.md has the format.
 */
export const flowEndpoints = ['photo/descriptor', 'identity/face', 'identity/person', 'image_matching/visual_hash'] as const;

/** The account service each step's synchronous endpoint needs (its route's): a flow needs them all. */
export const flowStepService: Readonly<Record<(typeof flowEndpoints)[number], string>> = {
  'photo/descriptor': 'descriptor',
  'identity/face': 'identity',
  'identity/person': 'identity',
  'image_matching/visual_hash': 'image_matching',
};
export type FlowEndpoint = (typeof flowEndpoints)[number];

/** Endpoints whose result has `_objects` with boxes, so a later step can run `over` them. */
const detectors: ReadonlySet<FlowEndpoint> = new Set(['identity/face', 'identity/person']);

export interface FlowStep {
  endpoint: FlowEndpoint;
  /** Key of this step's result in the output record. */
  as: string;
  /** Run on each object an earlier detector step found (a crop of its box) instead of the image. */
  over?: string;
  /** `image_matching/visual_hash` only: `bmh1` or `phash` (both when omitted). */
  hashType?: 'bmh1' | 'phash';
  /** `over` steps: at most this many objects, best first (default 10). */
  maxObjects: number;
}

export interface FlowDefinition {
  name: string;
  description: string;
  steps: FlowStep[];
}

export const flowNamePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const keyPattern = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

export class FlowDefinitionError extends Error {}

/** Checks a definition as an administrator wrote it; every problem is named with its step. */
export function parseFlow(name: string, input: unknown): FlowDefinition {
  const fail = (message: string): never => {
    throw new FlowDefinitionError(message);
  };
  if (!flowNamePattern.test(name)) fail(`flow name "${name}" must be 1–64 characters of a-z, 0-9, _ and -, starting with a letter or digit`);
  if (!input || typeof input !== 'object' || Array.isArray(input)) fail('a flow is a JSON object with "steps"');
  const def = input as Record<string, unknown>;
  for (const key of Object.keys(def)) if (!['name', 'description', 'steps'].includes(key)) fail(`unknown field "${key}" (allowed: name, description, steps)`);
  if (def.name !== undefined && def.name !== name) fail(`the file names the flow "${String(def.name)}" but it is being saved as "${name}"`);
  if (def.description !== undefined && (typeof def.description !== 'string' || def.description.length > 1000)) fail('"description" must be a string of at most 1000 characters');
  if (!Array.isArray(def.steps) || def.steps.length === 0 || def.steps.length > 10) fail('"steps" must be a list of 1 to 10 steps');
  const steps: FlowStep[] = [];
  const byKey = new Map<string, FlowStep>();
  (def.steps as unknown[]).forEach((raw, i) => {
    const where = `step ${i + 1}`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(`${where}: must be an object`);
    const s = raw as Record<string, unknown>;
    for (const key of Object.keys(s)) if (!['endpoint', 'as', 'over', 'hash_type', 'max_objects'].includes(key)) fail(`${where}: unknown field "${key}"`);
    if (!(flowEndpoints as readonly unknown[]).includes(s.endpoint)) fail(`${where}: "endpoint" must be one of ${flowEndpoints.join(', ')}`);
    const endpoint = s.endpoint as FlowEndpoint;
    const as = s.as ?? endpoint.split('/')[1];
    if (typeof as !== 'string' || !keyPattern.test(as) || as.startsWith('_')) fail(`${where}: "as" must be a field name (letters, digits, _; not starting with _)`);
    if (byKey.has(as as string)) fail(`${where}: "as" ${String(as)} is used by an earlier step; give this one its own`);
    const step: FlowStep = { endpoint, as: as as string, maxObjects: 10 };
    if (s.over !== undefined) {
      const source = typeof s.over === 'string' ? byKey.get(s.over) : undefined;
      if (!source) fail(`${where}: "over" must name an earlier step by its "as"`);
      if (!detectors.has(source!.endpoint) || source!.over !== undefined) fail(`${where}: "over" must name an earlier identity/face or identity/person step run on the image`);
      step.over = s.over as string;
    }
    if (s.hash_type !== undefined) {
      if (endpoint !== 'image_matching/visual_hash' || (s.hash_type !== 'bmh1' && s.hash_type !== 'phash')) fail(`${where}: "hash_type" is bmh1 or phash, for image_matching/visual_hash only`);
      step.hashType = s.hash_type as 'bmh1' | 'phash';
    }
    if (s.max_objects !== undefined) {
      if (step.over === undefined || !Number.isInteger(s.max_objects) || (s.max_objects as number) < 1 || (s.max_objects as number) > 50) fail(`${where}: "max_objects" is an integer 1–50, for "over" steps only`);
      step.maxObjects = s.max_objects as number;
    }
    steps.push(step);
    byKey.set(step.as, step);
  });
  return { name, description: (def.description as string | undefined) ?? '', steps };
}

/** The stored form: the same shape an administrator writes. */
export function flowToJson(def: FlowDefinition): Record<string, unknown> {
  return {
    name: def.name,
    description: def.description,
    steps: def.steps.map((s) => ({
      endpoint: s.endpoint,
      as: s.as,
      ...(s.over !== undefined ? { over: s.over, max_objects: s.maxObjects } : {}),
      ...(s.hashType ? { hash_type: s.hashType } : {}),
    })),
  };
}
