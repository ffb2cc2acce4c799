import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants as zlib, gzip, gzipSync } from 'node:zlib';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** One built file of the web console, kept in memory with its compressed forms. */
export interface ConsoleFile {
  contentType: string;
  raw: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  /** Vite names the files under assets/ by a hash of their content, so they never change. */
  immutable: boolean;
}

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** `console/dist` of the checkout, where `npm run console:build` writes and git keeps it. */
export const consoleDistDir = path.resolve(import.meta.dirname, '../../console/dist');

/**
 * The built console, read once. The bundle is small, so it is compressed once here rather than on
 * every request: brotli at its highest level takes 0.1–0.7 s for the bundle on the project's
 * machines, fine once but not per request. zlib's asynchronous calls do it on libuv's thread pool,
 * off the event loop.
 */
export class ConsoleBundle {
  private constructor(private readonly files: Map<string, ConsoleFile>) {}

  /**
   * `publicPath`: the path a proxy serves the server under (`/loupe`, LOUPE_PUBLIC_URL's), put before the page's
   * `/console/` file links, so its files load from `https://shop.example/loupe/console/…` (h112: a blank page).
   */
  static async load(dir = consoleDistDir, publicPath = ''): Promise<ConsoleBundle> {
    // LOUPE_PUBLIC_URL's path: fixed for the server's life, so the page is made once
    const files = new Map<string, ConsoleFile>();
    const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
    await Promise.all(
      entries
        .filter((entry) => entry.isFile())
        .map(async (entry) => {
          const full = path.join(entry.parentPath, entry.name);
          const rel = path.relative(dir, full).split(path.sep).join('/');
          const read = await fs.readFile(full);
          const raw = rel === 'index.html' && publicPath ? underPath(read, publicPath) : read;
          const [gz, br] = await Promise.all([gzipAsync(raw, { level: 9 }), brotliAsync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } })]);
          files.set(rel, { contentType: types[path.extname(entry.name).toLowerCase()] ?? 'application/octet-stream', raw, gzip: gz, brotli: br, immutable: rel.startsWith('assets/') });
        }),
    );
    return new ConsoleBundle(files);
  }

  /** A file by its path under the console (`assets/index-abc.js`); undefined when there is none. */
  file(rel: string): ConsoleFile | undefined {
    return this.files.get(rel);
  }

  get index(): ConsoleFile | undefined {
    return this.files.get('index.html');
  }

  private readonly prefixed = new Map<string, ConsoleFile>();
  /**
   * The page with its file links under `prefix` (a trusted proxy's X-Forwarded-Prefix, when LOUPE_PUBLIC_URL names
   * none: the files were asked for at the host's root, a blank page). A few prefixes are kept; the page is small.
   */
  indexUnder(prefix: string): ConsoleFile | undefined {
    const index = this.index;
    if (!index || !prefix) return index;
    let file = this.prefixed.get(prefix);
    if (!file) {
      const raw = underPath(index.raw, prefix);
      file = { ...index, raw, gzip: gzipSync(raw), brotli: brotliCompressSync(raw) };
      if (this.prefixed.size >= 16) this.prefixed.delete(this.prefixed.keys().next().value!);
      this.prefixed.set(prefix, file);
    }
    return file;
  }
}

function underPath(page: Buffer, prefix: string): Buffer {
  return Buffer.from(page.toString('utf8').replace(/(src|href)="\/console\//g, `$1="${prefix}/console/`));
}
