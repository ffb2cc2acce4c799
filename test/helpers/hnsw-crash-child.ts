/**
 * Child process for src/index/hnsw-crash.test.ts: a tiny SQLite table is the source of truth;
 * every insert commits, is applied to the index, then acknowledged on stdout ("ack <key>"),
 * deletions likewise ("del <key>"); checkpoints run now and then. The parent SIGKILLs it.
 *
 * Usage: node --import tsx test/helpers/hnsw-crash-child.ts <db> <index file> <dims> <seed>
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { HnswIndex, type IndexChange, type IndexSource } from '../../src/index/hnsw-index.ts';

export function openCrashDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS records (key INTEGER PRIMARY KEY, vector BLOB NOT NULL, seq INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS tombstones (key INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
    INSERT OR IGNORE INTO meta (id, seq) VALUES (1, 0);
  `);
  return db;
}

/** Copies: a BLOB's Buffer may sit at an offset that is not a multiple of 4. */
export function blobToVector(b: Buffer): Float32Array {
  return new Float32Array(new Uint8Array(b).buffer);
}

export function sqliteSource(db: Database.Database, dimensions: number): IndexSource {
  return {
    dimensions,
    *all() {
      for (const r of db.prepare('SELECT key, vector FROM records ORDER BY key').iterate() as Iterable<{ key: number; vector: Buffer }>) yield { key: r.key, vector: blobToVector(r.vector) };
    },
    changesSince(seq: number): IndexChange[] {
      const ups = db.prepare('SELECT key, vector, seq FROM records WHERE seq > ?').all(seq) as { key: number; vector: Buffer; seq: number }[];
      const dels = db.prepare('SELECT key, seq FROM tombstones WHERE seq > ?').all(seq) as { key: number; seq: number }[];
      return [...ups.map((r) => ({ key: r.key, vector: blobToVector(r.vector), seq: r.seq })), ...dels.map((r) => ({ key: r.key, vector: null, seq: r.seq }))];
    },
    currentSeq: () => (db.prepare('SELECT seq FROM meta WHERE id = 1').get() as { seq: number }).seq,
  };
}

async function main(): Promise<void> {
  const [dbFile, indexFile, dimsArg, seedArg] = process.argv.slice(2);
  const dims = Number(dimsArg);
  let s = Number(seedArg) >>> 0;
  const rand = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const db = openCrashDb(dbFile!);
  const source = sqliteSource(db, dims);
  const index = await HnswIndex.open({ file: indexFile!, dimensions: dims, source, threads: 1 });
  process.stdout.write(`ready ${index.openOutcome} ${index.size}\n`);

  const bump = db.prepare('UPDATE meta SET seq = seq + 1 WHERE id = 1 RETURNING seq');
  const insert = db.prepare('INSERT INTO records (vector, seq) VALUES (?, ?) RETURNING key');
  const clearTomb = db.prepare('DELETE FROM tombstones WHERE key = ?');
  const del = db.prepare('DELETE FROM records WHERE key = ? RETURNING key');
  const tomb = db.prepare('INSERT INTO tombstones (key, seq) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET seq = excluded.seq');
  const anyKey = db.prepare('SELECT key FROM records ORDER BY random() LIMIT 1');
  const doInsert = db.transaction((vector: Float32Array) => {
    const { seq } = bump.get() as { seq: number };
    const { key } = insert.get(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), seq) as { key: number };
    clearTomb.run(key);
    return { key, seq };
  });
  const doDelete = db.transaction(() => {
    const row = anyKey.get() as { key: number } | undefined;
    if (!row) return null;
    const { seq } = bump.get() as { seq: number };
    del.get(row.key);
    tomb.run(row.key, seq);
    return { key: row.key, seq };
  });

  for (let i = 1; ; i++) {
    const v = Float32Array.from({ length: dims }, () => rand() * 2 - 1);
    const { key, seq } = doInsert(v);
    index.add(key, v);
    process.stdout.write(`ack ${key}\n`);
    if (i % 6 === 0) {
      const d = doDelete();
      if (d) {
        index.remove(d.key);
        process.stdout.write(`del ${d.key}\n`);
      }
    }
    if (i % 25 === 0) await index.checkpoint(seq);
    else if (i % 5 === 0) await new Promise((r) => setImmediate(r));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
