import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Remarks, type ReadContext, type SetRow } from '../../src/catalog/catalog-rows.ts';
import { CatalogFileError } from '../../src/catalog/record-stream.ts';
import { expect } from 'vitest';
import { CatalogStore } from '../../src/store/catalog-store.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import type { Backend } from './harness.ts';
import { scratchPgDatabase } from './processes.ts';

/** Small catalog files in the real formats' field names (made-up cards). */
export const catalogFixtures = path.resolve(import.meta.dirname, '../fixtures/catalogs');
export const fixture = (...parts: string[]): string => path.join(catalogFixtures, ...parts);

/** The real catalog files beside the project; tests that need them skip with a message when absent. */
export const sharedCatalogs = path.resolve(import.meta.dirname, '../../../shared/catalogs');
export const sharedPresent = fs.existsSync(path.join(sharedCatalogs, 'pokemon/cards.json'));

/** A reader's context with nothing known yet; its remarks can be read back. */
export function readContext(knownSets: ReadonlyMap<string, SetRow> = new Map()): ReadContext & { remarks: Remarks } {
  return { knownSets, remarks: new Remarks(), onRecord: () => undefined, onBytes: () => undefined };
}

export interface TestStore {
  store: Store;
  catalogs: CatalogStore;
  close(): Promise<void>;
}

/** A migrated store on a fresh SQLite file or a scratch PostgreSQL database. */
export async function openTestStore(backend: Backend): Promise<TestStore> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-catalog-'));
  const pg = backend === 'postgres' ? await scratchPgDatabase('loupe_catalog') : undefined;
  const store = await openStore({ dataDir, databaseUrl: pg?.url });
  return {
    store,
    catalogs: new CatalogStore(store),
    close: async () => {
      await store.close();
      await pg?.drop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A folder of this test's own for files it writes (broken copies of fixtures and the like). */
export async function scratchDir(): Promise<{ dir: string; write(name: string, text: string | Buffer, gzip?: boolean): Promise<string>; remove(): Promise<void> }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-catalog-files-'));
  return {
    dir,
    write: async (name, text, gzip = false) => {
      const file = path.join(dir, name);
      await fsp.writeFile(file, gzip ? gzipSync(text) : text);
      return file;
    },
    remove: () => fsp.rm(dir, { recursive: true, force: true }),
  };
}

/** The CatalogFileError a read must fail with (the test fails when it does not). */
export async function catalogFileError(p: Promise<unknown>): Promise<CatalogFileError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CatalogFileError);
  return err as CatalogFileError;
}
