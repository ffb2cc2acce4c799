import { open, type FileHandle } from 'node:fs/promises';
import { pipeline, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * A catalog file that cannot be imported. `where` names the line (and the record, when a file
 * holds records on one line) so the person can open the file there.
 */
export class CatalogFileError extends Error {
  constructor(
    readonly file: string,
    readonly where: string | null,
    readonly problem: string,
  ) {
    super(`${file}${where ? ` ${where}` : ''}: ${problem}`);
    this.name = 'CatalogFileError';
  }
}

/** Bytes of the file read so far (compressed bytes for a .gz file) and its size. */
export type ByteProgress = (read: number, size: number) => void;

/** Text that is not UTF-8; `newlines`: the line breaks of the chunk before its first bad byte. */
class NotUtf8 extends Error {
  constructor(readonly newlines = 0) {
    super('is not UTF-8 text');
  }
}

/** The offset of the first byte that is not part of well-formed UTF-8, or the length when there is none. */
export function firstNonUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const n = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      // a sequence cut by the chunk's end is the next chunk's to finish
      if (i + k >= bytes.length) return bytes.length;
      if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    }
    i += n + 1;
  }
  return i;
}

const newlinesIn = (bytes: Uint8Array, end: number): number => {
  let n = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
};

/** The two bytes a UTF-16 file starts with (little- or big-endian byte-order mark). */
const utf16Bom = (head: Buffer): boolean => (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);

/**
 * The file's text in chunks, gunzipped when it starts with gzip's magic bytes (whatever its
 * name), decoded as UTF-8 with a BOM dropped. Catalog files reach 54 MB unpacked, so nothing
 * here holds more than a chunk. A file that changes while it is read (a copy or download still
 * being written) is refused at its end: what was read of it is no file anyone wrote, and a CSV
 * cut between rows reads as a whole one (h339: 24,135 of a growing file's 143,086 rows imported, exit 0).
 */
export async function* textChunks(file: string, progress?: ByteProgress): AsyncGenerator<string> {
  let handle: FileHandle;
  let before: { size: number; mtimeMs: number };
  let gzip: boolean;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new CatalogFileError(file, null, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    // the size and time of the file this handle reads: one replaced by a rename meanwhile is read whole, as it was
    before = await handle.stat();
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    gzip = bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
    // a spreadsheet's "Unicode text": every other byte 0, which the UTF-8 check called only "not UTF-8" at line 1
    if (bytesRead === 2 && utf16Bom(head)) throw new CatalogFileError(file, null, 'is UTF-16 text (a spreadsheet\'s "Unicode text"): save it as UTF-8 (CSV UTF-8) and import that');
  } catch (err) {
    await handle.close();
    if (err instanceof CatalogFileError) throw err;
    throw new CatalogFileError(file, null, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const size = before.size;
  const raw = handle.createReadStream({ start: 0, highWaterMark: 1 << 20, autoClose: false });
  let read = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      // the whole file is reported read once its text has been taken (below), so the line's record count is the file's
      if (read < size) progress?.(read, size);
      done(null, chunk);
    },
  });
  const input = gzip ? pipeline(raw, counter, createGunzip(), () => undefined) : pipeline(raw, counter, () => undefined);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        // the line of the bad byte, not the chunk's first: the text before it is handed on first
        const bad = firstNonUtf8(chunk);
        throw new NotUtf8(newlinesIn(chunk, bad));
      }
      if (text) yield text;
    }
    let tail: string;
    try {
      tail = decoder.decode();
    } catch {
      throw new NotUtf8();
    }
    const after = await handle.stat();
    if (read !== size || after.size !== size || after.mtimeMs !== before.mtimeMs) {
      throw new CatalogFileError(file, null, `changed while it was read (${size.toLocaleString('en-US')} bytes when the import began, ${after.size.toLocaleString('en-US')} at its end): import it once it is whole (a copy or download still being written?)`);
    }
    if (tail) yield tail;
    progress?.(size, size);
  } catch (err) {
    if (err instanceof NotUtf8 || err instanceof CatalogFileError) throw err;
    if (gzip && (err as { code?: string }).code?.startsWith('Z_')) throw new CatalogFileError(file, null, `is not a complete gzip file (${(err as Error).message})`);
    throw new CatalogFileError(file, null, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  } finally {
    raw.destroy();
    await handle.close();
  }
}

/** Where a record starts: its line, and its place when a line may hold several (one-line files). */
export function describeAt(line: number, index: number | null, path: string | null): string {
  if (index === null) return `line ${line}`;
  return `line ${line} (${path ? `"${path}" ` : ''}record ${index + 1})`;
}

export interface JsonRecord {
  /** The element as parsed; `undefined` for a skipped top-level member (see `path`). */
  value: unknown;
  line: number;
  /** 0-based place in its array; null for a top-level object member that is not an array. */
  index: number | null;
  /** The member of a top-level object whose array holds the record; null for a top-level array. */
  path: string | null;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const NEWLINE = 0x0a;
const CR = 0x0d;

type State = 'start' | 'key' | 'colon' | 'member' | 'afterMember' | 'value' | 'valueAfterComma' | 'afterValue' | 'end';

/** Deepest nesting of one element (a record); real catalog records are under ten levels. */
const MAX_ELEMENT_DEPTH = 64;

/**
 * Splits a JSON file into the elements of its top-level array, or of each array member of a
 * top-level object (`{"sets": [...], "cards": [...]}`), whatever the layout: one element per
 * line, pretty-printed, or all on one line. Only one element is held at a time; each is parsed
 * with JSON.parse, so a broken element is reported with the line it starts on and its place.
 * Members of a top-level object that are not arrays are reported (value `undefined`) but not
 * parsed: the caller decides whether the shape is one it knows.
 */
export class JsonSplitter {
  private state: State = 'start';
  private line = 1;
  private topObject = false;
  private key = '';
  private keyParts: string[] | null = null;
  private keyEscape = false;
  private index = 0;
  // The element being scanned.
  private parts: string[] | null = null;
  private depth = 0;
  private inString = false;
  private escape = false;
  private scalar = false;
  private skip = false;
  private startLine = 0;
  private startIndex: number | null = null;

  constructor(private readonly file: string) {}

  get currentLine(): number {
    return this.line;
  }

  private fail(problem: string, line = this.line): never {
    throw new CatalogFileError(this.file, `line ${line}`, problem);
  }

  private parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new CatalogFileError(this.file, describeAt(this.startLine, this.startIndex, this.topObject ? this.key : null), `is not valid JSON (${(err as Error).message})`);
    }
  }

  push(chunk: string, out: JsonRecord[]): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.parts) {
        i = this.scanElement(chunk, i, out);
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (this.keyParts) {
        // Inside a member name of the top-level object.
        const from = i;
        while (i < n) {
          const k = chunk.charCodeAt(i);
          if (this.keyEscape) this.keyEscape = false;
          else if (k === BACKSLASH) this.keyEscape = true;
          else if (k === QUOTE) break;
          else if (k === NEWLINE) this.fail('a member name is not closed');
          i++;
        }
        this.keyParts.push(chunk.slice(from, i));
        if (i < n) {
          this.key = JSON.parse(`"${this.keyParts.join('')}"`) as string;
          this.keyParts = null;
          this.state = 'colon';
          i++;
        }
        continue;
      }
      if (WS.has(c)) {
        if (c === NEWLINE) this.line++;
        i++;
        continue;
      }
      switch (this.state) {
        case 'start':
          if (c === OPEN_ARRAY) this.state = 'value';
          else if (c === OPEN_OBJECT) {
            this.topObject = true;
            this.state = 'key';
          } else this.fail('the file does not start with a JSON array or object');
          i++;
          break;
        case 'key':
          if (c === QUOTE) {
            this.keyParts = [];
            i++;
          } else if (c === CLOSE_OBJECT) {
            this.state = 'end';
            i++;
          } else this.fail('expected a member name in the top-level object');
          break;
        case 'colon':
          if (c !== COLON) this.fail(`expected ":" after "${this.key}"`);
          this.state = 'member';
          i++;
          break;
        case 'member':
          if (c === OPEN_ARRAY) {
            this.index = 0;
            this.state = 'value';
            i++;
          } else {
            out.push({ value: undefined, line: this.line, index: null, path: this.key });
            this.begin(c, true);
          }
          break;
        case 'afterMember':
          if (c === COMMA) this.state = 'key';
          else if (c === CLOSE_OBJECT) this.state = 'end';
          else this.fail('expected "," or "}" in the top-level object');
          i++;
          break;
        case 'value':
        case 'valueAfterComma':
          if (c === CLOSE_ARRAY) {
            if (this.state === 'valueAfterComma') this.fail('a comma before "]" (an empty record)');
            this.closeArray();
            i++;
          } else if (c === COMMA) this.fail(`an empty record after record ${this.index}`);
          else this.begin(c, false);
          break;
        case 'afterValue':
          if (c === COMMA) this.state = 'valueAfterComma';
          else if (c === CLOSE_ARRAY) this.closeArray();
          else this.fail(`expected "," or "]" after record ${this.index}`);
          i++;
          break;
        case 'end':
          this.fail('text after the end of the JSON');
      }
    }
  }

  private closeArray(): void {
    this.state = this.topObject ? 'afterMember' : 'end';
  }

  private begin(c: number, skip: boolean): void {
    this.parts = [];
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.scalar = c !== OPEN_OBJECT && c !== OPEN_ARRAY && c !== QUOTE;
    this.skip = skip;
    this.startLine = this.line;
    this.startIndex = skip ? null : this.index;
  }

  /** Scans the current element from `i`; returns where scanning stopped. */
  private scanElement(chunk: string, i: number, out: JsonRecord[]): number {
    const n = chunk.length;
    const from = i;
    let done = false;
    if (this.scalar) {
      while (i < n) {
        const c = chunk.charCodeAt(i);
        if (c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || WS.has(c)) {
          done = true;
          break;
        }
        i++;
      }
    } else {
      while (i < n) {
        const c = chunk.charCodeAt(i);
        if (this.inString) {
          if (this.escape) this.escape = false;
          else if (c === BACKSLASH) this.escape = true;
          else if (c === QUOTE) {
            this.inString = false;
            if (this.depth === 0) {
              i++;
              done = true;
              break;
            }
          } else if (c === NEWLINE) this.line++;
        } else if (c === QUOTE) this.inString = true;
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
          // what reads a record afterwards recurses: thousands of levels overflowed the stack, named nowhere
          if (++this.depth > MAX_ELEMENT_DEPTH && !this.skip) throw new CatalogFileError(this.file, describeAt(this.startLine, this.startIndex, this.topObject ? this.key : null), `nests deeper than ${MAX_ELEMENT_DEPTH} levels (a catalog record is a few levels deep)`);
        } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
          this.depth--;
          if (this.depth === 0) {
            i++;
            done = true;
            break;
          }
        } else if (c === NEWLINE) this.line++;
        i++;
      }
    }
    if (!this.skip) this.parts!.push(chunk.slice(from, i));
    if (done) this.finish(out);
    return i;
  }

  private finish(out: JsonRecord[]): void {
    const parts = this.parts!;
    this.parts = null;
    if (this.skip) {
      this.state = 'afterMember';
      return;
    }
    const value = this.parse(parts.length === 1 ? parts[0]! : parts.join(''));
    out.push({ value, line: this.startLine, index: this.index, path: this.topObject ? this.key : null });
    this.index++;
    this.state = 'afterValue';
  }

  end(): void {
    if (this.parts) {
      if (this.scalar) {
        // A bare scalar at the very end of the file cannot be a record: the array is not closed.
        this.fail('the file ends before its array is closed (truncated?)');
      }
      this.fail(`the file ends inside ${this.skip ? `"${this.key}"` : `record ${this.index + 1}`}, which starts on line ${this.startLine} (truncated?)`);
    }
    if (this.state === 'start') this.fail('the file is empty');
    if (this.state !== 'end') this.fail('the file ends before its JSON is closed (truncated?)');
  }
}

/** Records of a JSON file (see {@link JsonSplitter}), streamed. */
export async function* readJsonRecords(file: string, progress?: ByteProgress): AsyncGenerator<JsonRecord> {
  const splitter = new JsonSplitter(file);
  const out: JsonRecord[] = [];
  try {
    for await (const chunk of textChunks(file, progress)) {
      splitter.push(chunk, out);
      for (const r of out) yield r;
      out.length = 0;
    }
  } catch (err) {
    if (err instanceof NotUtf8) throw new CatalogFileError(file, `line ${splitter.currentLine + err.newlines}`, 'is not UTF-8 text');
    throw err;
  }
  splitter.end();
}

export interface CsvRow {
  values: string[];
  /** The line the row starts on (a quoted field may span lines). */
  line: number;
}

type CsvState = 'fieldStart' | 'unquoted' | 'quoted' | 'quoteInQuoted';

/**
 * RFC 4180 CSV, streamed: comma-separated, fields quoted with `"` (doubled inside), quoted fields
 * may hold commas and line breaks, CRLF or LF. Strict where a lenient reader would guess: a quote
 * inside an unquoted field, text after a closing quote or an unclosed quote is an error naming
 * the line. Blank lines are skipped.
 */
export class CsvSplitter {
  private state: CsvState = 'fieldStart';
  private line = 1;
  private rowLine = 1;
  private field = '';
  private values: string[] = [];
  private pendingCr = false;

  constructor(private readonly file: string) {}

  get currentLine(): number {
    return this.line;
  }

  private fail(problem: string, line = this.line): never {
    throw new CatalogFileError(this.file, `line ${line}`, problem);
  }

  private endField(): void {
    this.values.push(this.field);
    this.field = '';
  }

  private endRow(out: CsvRow[]): void {
    this.endField();
    if (!(this.values.length === 1 && this.values[0] === '')) out.push({ values: this.values, line: this.rowLine });
    this.values = [];
    this.line++;
    this.rowLine = this.line;
    this.state = 'fieldStart';
  }

  push(chunk: string, out: CsvRow[]): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.pendingCr) {
        this.pendingCr = false;
        // CRLF, or a lone CR (old Mac files): either ends the row.
        this.endRow(out);
        if (chunk.charCodeAt(i) === NEWLINE) {
          i++;
          continue;
        }
      }
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case 'fieldStart':
        case 'unquoted': {
          if (this.state === 'fieldStart' && c === QUOTE) {
            this.state = 'quoted';
            i++;
            break;
          }
          // Runs of plain characters are taken as one slice: most of a file is such runs.
          const from = i;
          while (i < n) {
            const k = chunk.charCodeAt(i);
            if (k === COMMA || k === NEWLINE || k === CR || k === QUOTE) break;
            i++;
          }
          if (i > from) {
            this.field += chunk.slice(from, i);
            this.state = 'unquoted';
          }
          if (i === n) break;
          const k = chunk.charCodeAt(i);
          if (k === QUOTE) this.fail(`a quote inside an unquoted field (field ${this.values.length + 1})`);
          this.delimiter(k, out);
          i++;
          break;
        }
        case 'quoted': {
          const from = i;
          while (i < n) {
            const k = chunk.charCodeAt(i);
            if (k === QUOTE) break;
            if (k === NEWLINE) this.line++;
            i++;
          }
          this.field += chunk.slice(from, i);
          if (i < n) {
            this.state = 'quoteInQuoted';
            i++;
          }
          break;
        }
        case 'quoteInQuoted':
          if (c === QUOTE) {
            this.field += '"';
            this.state = 'quoted';
          } else if (c === COMMA || c === NEWLINE || c === CR) this.delimiter(c, out);
          else this.fail(`text after the closing quote of field ${this.values.length + 1}`);
          i++;
          break;
      }
    }
  }

  private delimiter(c: number, out: CsvRow[]): void {
    if (c === COMMA) {
      this.endField();
      this.state = 'fieldStart';
    } else if (c === NEWLINE) this.endRow(out);
    else this.pendingCr = true;
  }

  end(out: CsvRow[]): void {
    if (this.state === 'quoted') this.fail(`a quoted field is not closed (the row starts on line ${this.rowLine})`, this.rowLine);
    if (this.pendingCr || this.state !== 'fieldStart' || this.values.length > 0) this.endRow(out);
  }
}

export interface CsvRecord {
  /** Column name → value, as text. */
  value: Record<string, string>;
  line: number;
  /** 0-based data row. */
  index: number;
}

/**
 * Rows of a CSV file with a header line, as objects. A row with more or fewer fields than the
 * header is an error naming its line; so is a header naming a column twice.
 */
export async function* readCsvRecords(file: string, progress?: ByteProgress): AsyncGenerator<CsvRecord> {
  const splitter = new CsvSplitter(file);
  const rows: CsvRow[] = [];
  let header: string[] | null = null;
  let index = 0;
  const take = function* (): Generator<CsvRecord> {
    for (const row of rows) {
      if (!header) {
        header = row.values.map((h) => h.trim());
        const seen = new Set<string>();
        for (const h of header) {
          if (seen.has(h)) throw new CatalogFileError(file, `line ${row.line}`, `the header names column "${h}" twice`);
          seen.add(h);
        }
        continue;
      }
      if (row.values.length !== header.length) {
        // a European spreadsheet's export: its header one column of semicolons, its decimal commas fields (h228)
        const semicolons = header.length === 1 && header[0]!.includes(';') ? ' (the file looks separated by semicolons: CSV files here are separated by commas)' : '';
        throw new CatalogFileError(file, `line ${row.line}`, `${row.values.length} fields where the header has ${header.length} columns${semicolons}`);
      }
      const value: Record<string, string> = {};
      for (let c = 0; c < header.length; c++) value[header[c]!] = row.values[c]!;
      yield { value, line: row.line, index: index++ };
    }
    rows.length = 0;
  };
  // the file's last row (no newline after it) comes out of splitter.end(): "all read" waits for it
  let size: number | undefined;
  const early: ByteProgress = (read, total) => (read < total ? progress?.(read, total) : (size = total));
  try {
    for await (const chunk of textChunks(file, early)) {
      try {
        splitter.push(chunk, rows);
      } catch (err) {
        // the rows split before the fault are checked first: an earlier line's fault is the one to name
        yield* take();
        throw err;
      }
      yield* take();
    }
  } catch (err) {
    if (err instanceof NotUtf8) throw new CatalogFileError(file, `line ${splitter.currentLine + err.newlines}`, 'is not UTF-8 text');
    throw err;
  }
  splitter.end(rows);
  yield* take();
  if (size !== undefined) progress?.(size, size);
  if (!header) throw new CatalogFileError(file, null, 'is empty (no header line)');
}

/** Whether a file holds JSON (its first non-blank character is `[` or `{`), after gunzipping. */
export async function looksLikeJson(file: string): Promise<boolean> {
  try {
    for await (const chunk of textChunks(file)) {
      const m = /\S/.exec(chunk);
      if (m) return m[0] === '[' || m[0] === '{';
    }
  } catch (err) {
    // not text: the reader that follows names the file and line (this threw an error of no words: "loupe: ")
    if (err instanceof NotUtf8) return false;
    throw err;
  }
  return false;
}
