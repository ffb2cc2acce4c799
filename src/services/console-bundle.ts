import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

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
 * The built console, read once at start-up. The whole bundle is a few hundred kilobytes, so it is
 * compressed once here rather than on every request (brotli at its highest level takes tens of
 * milliseconds a file: fine once, not per request).
 */
export class ConsoleBundle {
  private constructor(private readonly files: Map<string, ConsoleFile>) {}

  static load(dir = consoleDistDir): ConsoleBundle {
    const files = new Map<string, ConsoleFile>();
    if (!fs.existsSync(path.join(dir, 'index.html'))) return new ConsoleBundle(files);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      const rel = path.relative(dir, full).split(path.sep).join('/');
      const raw = fs.readFileSync(full);
      const contentType = types[path.extname(entry.name).toLowerCase()] ?? 'application/octet-stream';
      files.set(rel, {
        contentType,
        raw,
        gzip: gzipSync(raw, { level: 9 }),
        brotli: brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
        immutable: rel.startsWith('assets/'),
      });
    }
    return new ConsoleBundle(files);
  }

  get built(): boolean {
    return this.files.has('index.html');
  }

  /** A file by its path under the console (`assets/index-abc.js`); undefined when there is none. */
  file(rel: string): ConsoleFile | undefined {
    return this.files.get(rel);
  }

  get index(): ConsoleFile | undefined {
    return this.files.get('index.html');
  }
}
