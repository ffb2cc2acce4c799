#!/usr/bin/env node
// The admin command runs the TypeScript sources directly through tsx, like `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
