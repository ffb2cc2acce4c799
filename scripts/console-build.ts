/**
 * Builds the web console (console/ → console/dist, committed) and records a hash of its sources,
 * so a test can tell when someone changed the console without rebuilding it.
 * `npm run console:build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { consoleSourceHash } from './console-sources.ts';

const root = path.resolve(import.meta.dirname, '../console');
await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
// Vite leaves the page's white space as written; the page is sent on every visit, so it goes without.
const page = path.join(root, 'dist/index.html');
fs.writeFileSync(page, `${fs.readFileSync(page, 'utf8').replace(/>\s+</g, '><').trim()}\n`);
fs.writeFileSync(path.join(root, 'dist/build.json'), `${JSON.stringify({ sources: consoleSourceHash() }, null, 2)}\n`);
console.log(`console built in ${path.relative(process.cwd(), path.join(root, 'dist'))}`);
