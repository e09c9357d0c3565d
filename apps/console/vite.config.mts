import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = import.meta.dirname;
/** The service `npm start` runs; `npm run console:dev` proxies the API and the explorer to it. */
const api = process.env.CONSOLE_API ?? 'http://localhost:5001';

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  // The names and rules the service and the console share, declared once (libs/declarations: no import of its own).
  resolve: { alias: { '@app/declarations': join(root, '../../libs/declarations/src') } },
  build: {
    // Served by the Nest process (libs/console): index.html for the console's routes, assets/ as files.
    // Not under the server's dist/, which nest build and nest start --watch delete.
    outDir: join(root, 'dist'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Never data: URLs: every asset is a file of this origin (CSP img-src 'self').
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
    // dist/.vite/manifest.json: which chunks each route loads (scripts/console.ts routeScripts). Never
    // served: the service serves dist/assets only.
    manifest: true,
  },
  server: {
    port: 5173,
    strictPort: true,
    // Host kept as the browser sent it, so the service's same-origin (CSRF) check sees one origin.
    proxy: { '/api': { target: api }, '/swagger': { target: api } },
  },
});
