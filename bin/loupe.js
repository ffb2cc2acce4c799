#!/usr/bin/env node
// The admin command runs the TypeScript sources directly through tsx, like `npm start`.
import './tsx-cache.mjs';

const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
