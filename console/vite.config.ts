import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Preact's JSX through Vite's own transformer: the Preact preset would add Babel and the dev-only
// refresh runtime, neither of which the built console needs.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The server's content security policy allows no inline data; every asset is a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  server: { proxy: { '^/(cardstream|similarity|photo|image_matching|identity|collectibles|account|media)/': 'http://127.0.0.1:8080' } },
});
