import type { CollectionQueries } from '../../index/collection-queries.ts';
import type { CollectionRecord } from '../../store/collection-store.ts';
import { ServiceError } from '../errors.ts';

/**
 * Spec 2, fashion rule 4: where a fashion or home-decor collection has a product field, every
 * record must carry it, "otherwise search responses return an error" — every search, by image or
 * by text. Records stored before the rule without it are counted once per collection change.
 */
export class ProductRule {
  private readonly without = new Map<string, { seq: number; count: number; ids: string[] }>();

  constructor(private readonly queries: CollectionQueries) {}

  /** 409 `missing_product_field` when some record of such a collection lacks the field. */
  async require(c: CollectionRecord): Promise<void> {
    if ((c.type !== 'fashion' && c.type !== 'homedecor') || !c.productField) return;
    let held = this.without.get(c.id);
    if (!held || held.seq !== c.seq) {
      const filter = { [c.productField]: { $exists: false } };
      const count = await this.queries.count(c, filter);
      held = { seq: c.seq, count, ids: count ? (await this.queries.find(c, filter, 5, 0)).map((r) => r.recordId) : [] };
      this.without.set(c.id, held);
    }
    if (held.count) {
      throw new ServiceError(409, 'missing_product_field', `${held.count} record(s) of this collection have no ${c.productField} (for example ${held.ids.join(', ')}); every record of a ${c.type} collection must carry it. Update them with one, or delete them.`);
    }
  }
}
