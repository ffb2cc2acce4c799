import { storedMediaUrl, type MediaLinks } from '../media/media-links.ts';
import type { HandlerRegistry } from '../queue/job-handler.ts';
import type { AsyncRequestRow } from '../store/request-store.ts';

/**
 * Asynchronous results keep their images as unsigned URLs (the job runner's `putMedia`); every
 * read (the detail, a webhook delivery) swaps them for links signed then, so a poll days later
 * still gets a working link while a link copied from an older answer expires.
 */
export class ResultLinks {
  constructor(
    private readonly links: MediaLinks,
    private readonly registry: HandlerRegistry,
    /** LOUPE_PUBLIC_URL: the base of links where no request names one (a webhook delivery). */
    private readonly publicUrl?: string,
  ) {}

  /**
   * The stored result with its images' links signed now, on `readBase` (the reading request's own
   * base), else the configured public URL, else the base of the request that submitted it: the node
   * a client submitted through may be gone, renamed or restored elsewhere since.
   */
  response(row: AsyncRequestRow, readBase?: string): Record<string, unknown> | null {
    if (!row.response || row.media.length === 0) return row.response;
    const stored = String(row.options.baseUrl ?? '');
    const baseUrl = readBase ?? this.publicUrl ?? stored;
    // Only this request's own images: a client's `_url` echoed in the result that names some
    // other image (another tenant's, say) must not come back signed.
    const own = new Map(row.media.map((key) => [storedMediaUrl(stored, key), key]));
    const kind = this.registry.get(row.type)?.publicMedia?.(row.endpoint) ? 'public' : 'private';
    const sign = (value: unknown): unknown => {
      if (typeof value === 'string') {
        const key = own.get(value);
        return key === undefined ? value : this.links.url(baseUrl, key, kind);
      }
      if (Array.isArray(value)) return value.map(sign);
      if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sign(v)]));
      return value;
    };
    return sign(row.response) as Record<string, unknown>;
  }

  /**
   * The request's previews (migration 049), each a link signed now on the same base as {@link response}'s, private
   * whatever the endpoint (a preview is the client's own photo, not a result the spec calls publicly readable).
   */
  previews(row: AsyncRequestRow, readBase?: string): { index: number; _url: string; width: number; height: number }[] {
    const baseUrl = readBase ?? this.publicUrl ?? String(row.options.baseUrl ?? '');
    return row.previews.map((p) => ({ index: p.index, _url: this.links.url(baseUrl, p.key), width: p.width, height: p.height }));
  }
}
