import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };

/**
 * Every object of the document's recognition and grading schemas closed (`additionalProperties: false` where the schema does not
 * say): an answer field the document does not declare fails, so the typed record cannot drift from what is answered.
 * The record itself stays open (a record's own fields and hints come back as sent).
 */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([name, s]) => [name, closed(s)])) : closed(v);
  if (out.type === 'object' && out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

const checkers = new WeakMap<FastifyInstance, { doc: Doc; ajv: Ajv; record: ValidateFunction; grading: ValidateFunction; webhook: ValidateFunction; response: ValidateFunction }>();

function checkerOf(app: FastifyInstance) {
  let c = checkers.get(app);
  if (!c) {
    const doc = JSON.parse(JSON.stringify((app as unknown as { swagger(): unknown }).swagger())) as Doc;
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'doc', components: { schemas: Object.fromEntries(Object.entries(doc.components.schemas).map(([name, s]) => [name, /^(Recognition|Recognized|PriceStat|Grading|Request|.*Match$)/.test(name) ? closed(s) : s])) } });
    c = { doc, ajv, record: ajv.compile({ $ref: 'doc#/components/schemas/RecognitionRecord' }), grading: ajv.compile({ $ref: 'doc#/components/schemas/GradingRecord' }), webhook: ajv.compile({ $ref: 'doc#/components/schemas/WebhookPayload' }), response: ajv.compile({ $ref: 'doc#/components/schemas/RequestResponse' }) };
    checkers.set(app, c);
  }
  return c;
}

const errorsOf = (ajv: Ajv, errors: ValidateFunction['errors']) => ajv.errorsText(errors, { separator: '; ' });

/**
 * A collectibles answer checked against the schema the OpenAPI document declares for its status, and a finished
 * recognition or grading request's records against their record: throws naming the field that differs.
 */
export function checkAnswerContract(app: FastifyInstance, method: string, url: string, res: LightMyRequestResponse): void {
  const path = url.split('?')[0]!;
  if (path.startsWith('/collectibles/v2/')) {
    if (!res.headers['content-type']?.toString().startsWith('application/json')) return;
    const { doc, ajv } = checkerOf(app);
    const operation = doc.paths[path]?.[method.toLowerCase()];
    // a method or path the document has no operation for (405, 404) is not an answer of it
    if (!operation) return;
    const response = operation.responses[String(res.statusCode)];
    if (!response) throw new Error(`answer contract: ${method} ${path} answered HTTP ${res.statusCode}, which the OpenAPI document does not declare`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return;
    const valid = ajv.validate(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')), res.json());
    if (!valid) throw new Error(`answer contract: ${method} ${path} HTTP ${res.statusCode} differs from the OpenAPI document: ${errorsOf(ajv, ajv.errors)}`);
  } else if (/^\/account\/v2\/request\/[^/?]+\/?$/.test(path) && method === 'GET' && res.statusCode === 200) {
    const body = res.json() as { type?: string; status?: string; response?: { records?: unknown[] } };
    if (body.status !== 'DONE') return;
    const { ajv, record, grading, response } = checkerOf(app);
    if (!response(body.response)) throw new Error(`answer contract: request ${path} response differs from RequestResponse: ${errorsOf(ajv, response.errors)}`);
    if (body.type !== 'collectibles-recognition' && body.type !== 'card-grader') return;
    const [check, name] = body.type === 'card-grader' ? [grading, 'GradingRecord'] : [record, 'RecognitionRecord'];
    for (const [i, r] of (body.response?.records ?? []).entries()) {
      if (!check(r)) throw new Error(`answer contract: request ${path} record ${i} differs from ${name}: ${errorsOf(ajv, check.errors)}`);
    }
  }
}

/** What a completion webhook's body differs in from the document's callback payload (`WebhookPayload`), or null. */
export function webhookPayloadErrors(app: FastifyInstance, body: string): string | null {
  const { ajv, webhook } = checkerOf(app);
  return webhook(JSON.parse(body)) ? null : errorsOf(ajv, webhook.errors);
}
