/** The shapes of spec 1 and 3 the console reads; fields it never shows are left out. */

export interface Page<T> {
  count: number;
  next: string | null;
  previous?: string | null;
  results: T[];
}

/** A session as the console reads it (spec 1 §2 has more fields: description, platform, ended, client, meta_data). */
export type Session = { id: string; name: string; game: string; status: 'live' | 'closed'; started: string; etag?: string } & Record<'identification_count' | 'total_price', number>;

export interface Summary {
  identifications: number;
  distinct_cards: number;
  total_price: number;
  paid_calls: number;
  average_grade: number | null;
}

export interface PriceStatsEntry {
  stats_type: string;
  interval: string;
  start_date?: string | null;
  currency?: string;
  value?: Record<string, unknown> & { trend?: Record<string, unknown> };
}

/** The text fields of a card (spec 1 §2) that a user may correct (PATCH identification). */
export const matchTextFields = ['name', 'full_name', 'set_name', 'set_code', 'card_number', 'series', 'year', 'subcategory'] as const;
export type MatchTextField = (typeof matchTextFields)[number];

/** One row of a session as the identification list returns it. */
export type Identification = { id: string; event_id: string } & Partial<Record<MatchTextField | 'seen' | 'id_type' | 'confidence' | 'note', string | null>> &
  Partial<Record<'distance' | 'price' | 'grade', number | null>> & {
    links?: Record<string, string> | null;
    alternatives?: Record<string, unknown>[] | null;
    price_stats?: PriceStatsEntry[] | null;
    grading?: { grades?: Record<string, unknown> } | null;
    image?: string | null;
    thumbnail?: string | null;
    sold?: boolean | null;
    corrected?: boolean;
    /** The row's version: any write changes it (an image or grading sent after the card, a note, a correction). */
    etag?: string;
    /** The card as the app first sent it, kept by the first correction (docs/api-decisions.md). */
    original?: Record<string, unknown> | null;
  };

export type Correction = Partial<Record<MatchTextField, string | null>> & { price?: number | null; sold?: boolean; note?: string; links?: unknown; price_stats?: unknown };

export interface StatusObj {
  code: number;
  text: string;
  request_id?: string;
}

export interface MatchObject {
  name: string;
  id: number | string;
  bound_box: [number, number, number, number];
  prob?: number;
  _tags?: Record<string, { name: string; prob?: number }[]>;
  _identification?: {
    best_match: Record<string, unknown> | null;
    alternatives: Record<string, unknown>[];
    distances: number[];
  };
}

export interface RecognitionRecord {
  _id?: string;
  _width?: number;
  _height?: number;
  _status: StatusObj;
  _objects?: MatchObject[];
}

/**
 * A finished request's JPEG of one photo it read (`GET /account/v2/request/<id>/previews`, not in the spec): `index` its
 * record's place, `width` × `height` its own pixels, the photo's scaled on both axes.
 */
export interface RequestPreview {
  index: number;
  _url: string;
  width: number;
  height: number;
}

export interface AsyncRequest {
  id: string;
  type: string;
  status: 'CREATED' | 'PROCESSING' | 'DONE';
  created: string;
  modified?: string;
  /** On the list's rows: where its webhook is (null: none). */
  webhook_state?: 'waiting' | 'pending' | 'delivered' | 'failed' | null;
  request?: { endpoint?: string; records?: Record<string, unknown>[] };
  response?: { records: Record<string, unknown>[]; grades?: Record<string, unknown> };
}
