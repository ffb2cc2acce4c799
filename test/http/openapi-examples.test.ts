import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basesOf } from '../../src/services/collection-service.ts';
import { collectionTypes, type CollectionType } from '../../src/store/collection-store.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

type Op = { requestBody?: { content?: Record<string, { example?: unknown }> }; parameters?: { in: string; name: string }[] };

/** The collection type a collection method's (or text search's) path serves. */
function typeOf(route: string): CollectionType | undefined {
  const text = /^\/similarity\/text\/([a-z]+)\/v2\/text$|^\/photo\/text\/v2\/text$/.exec(route);
  if (text) return ({ photos: 'photo', products: 'product', fashion: 'fashion', homedecor: 'homedecor' } as Record<string, CollectionType>)[text[1] ?? 'photos'];
  return collectionTypes.find((t) => basesOf(t).some((b) => route.startsWith(`${b}/`)));
}

/**
 * The documentation page's "Try it out" sends the document's example: every operation with a JSON body has one, and the
 * server takes it (h272: without examples the page made bodies of "string" in every field, which it refused).
 */
describe.each(backends)('request examples of the OpenAPI document (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    await h.app.ready();
    // the examples send the same few images to every image endpoint, on both backends (test/helpers/vision-memo.ts)
    rememberVision(h);
  });
  afterAll(() => h?.close());

  it('every JSON body has an example, and the server takes each as it stands', async () => {
    const doc = h.app.swagger() as { paths: Record<string, Record<string, Op>> };
    const collections = new Map<CollectionType, string>();
    for (const type of collectionTypes) collections.set(type, (await h.app.loupe.collections.create({ accountId: h.account.account, type, name: `examples ${type}` })).id);
    const session = (await h.request('POST', '/cardstream/v2/session/', { body: { name: 'examples', game: 'TCG' } })).json().id as string;
    let requestId = '';
    const refused: string[] = [];
    let sent = 0;
    for (const [route, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const media = op.requestBody?.content?.['application/json'];
        if (!media) continue;
        const name = `${method.toUpperCase()} ${route}`;
        if (media.example === undefined) {
          refused.push(`${name}: no example`);
          continue;
        }
        let url = route.replace('{session_id}', session);
        if (url.includes('/identification/{id}/')) {
          const row = (await h.request('GET', `/cardstream/v2/identification/?session=${session}&event_id=e1`)).json().results[0] as { id: string } | undefined;
          url = url.replace('{id}', row?.id ?? 'none');
        }
        url = url.replace('{id}', requestId);
        const type = typeOf(route);
        const headers: Record<string, string> = type ? { 'collection-id': collections.get(type)! } : {};
        const res = await h.request(method.toUpperCase() as 'POST', url, { body: media.example, headers });
        sent++;
        if (route === '/account/v2/request') requestId = res.json().id;
        const body = res.json() as { code?: string; detail?: string; records?: { _status?: { code: number } }[]; skipped_records?: unknown[] };
        // a catalog not imported here, or a webhook host this machine cannot resolve, is the machine's state, not the example's
        const unavailable = (res.statusCode === 503 && body.code === 'no_catalog') || (res.statusCode === 400 && /^Invalid webhook: shop\.example does not resolve/.test(body.detail ?? ''));
        // the example image holds no card or slab label (404 per record), or nearDupsInsert's copy of the inserted image is
        // a near duplicate (411, spec 2): answers to the body, which was taken
        const answered =
          (res.statusCode === 404 && (body.records?.length ?? 0) > 0 && body.records!.every((r) => r._status?.code === 404)) ||
          (res.statusCode === 411 && route.endsWith('/nearDupsInsert') && (body.skipped_records?.length ?? 0) > 0);
        if (!(res.statusCode <= 300 || unavailable || answered)) refused.push(`${name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
    }
    expect(refused).toEqual([]);
    expect(sent).toBeGreaterThan(150);
  }, 600_000);
});
