/** The shapes of spec 1 and 3 the console reads; fields it never shows are left out. */

export interface Page<T> {
  count: number;
  next: string | null;
  previous?: string | null;
  results: T[];
}

export interface Session {
  id: string;
  name: string;
  description: string;
  game: string;
  platform: string;
  status: 'live' | 'closed';
  started: string;
  ended: string | null;
  identification_count: number;
  total_price: number;
}

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

export interface Identification {
  id: string;
  event_id: string;
  seen?: string | null;
  id_type?: string | null;
  name?: string | null;
  full_name?: string | null;
  set_name?: string | null;
  set_code?: string | null;
  card_number?: string | null;
  series?: string | null;
  year?: string | null;
  subcategory?: string | null;
  distance?: number | null;
  confidence?: string | null;
  links?: Record<string, string> | null;
  alternatives?: Record<string, unknown>[] | null;
  price_stats?: PriceStatsEntry[] | null;
  price?: number | null;
  grading?: { grades?: Record<string, unknown> } | null;
  grade?: number | null;
  image?: string | null;
  thumbnail?: string | null;
  sold?: boolean | null;
  note?: string | null;
  corrected?: boolean;
}

export type Correction = Partial<Record<'name' | 'full_name' | 'set_name' | 'set_code' | 'card_number' | 'series' | 'year' | 'subcategory', string>> & { price?: number | null };

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

export interface AsyncRequest {
  id: string;
  type: string;
  status: 'CREATED' | 'PROCESSING' | 'DONE';
  created: string;
  modified?: string;
  request?: { endpoint?: string; records?: Record<string, unknown>[] };
  response?: { records: Record<string, unknown>[]; grades?: Record<string, unknown> };
}
