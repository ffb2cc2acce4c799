// Loaded before tsx (`node --import ./bin/tsx-cache.mjs --import tsx …`, and by bin/loupe.js): tsx keeps its compile
// cache in the temporary folder, and a read-only root filesystem (a locked-down container) has none writable. Without
// the cache then, rather than a stack trace at start (h184).
import fs from 'node:fs';
import os from 'node:os';
import './address-space.mjs';

if (!process.env.TSX_DISABLE_CACHE) {
  try {
    fs.accessSync(os.tmpdir(), fs.constants.W_OK);
  } catch {
    process.env.TSX_DISABLE_CACHE = '1';
  }
}
