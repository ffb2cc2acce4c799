import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/config.ts';

export const openapiFile = path.resolve(import.meta.dirname, '../../docs/openapi.json');

/** The OpenAPI document as the app generates it from the route schemas, in the form kept in docs/. */
export async function generateOpenapi(): Promise<string> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-openapi-'));
  const app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent' }));
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
