import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The panel's front end. Built into services/panel/dist/web, which the panel server serves under
 * /panel (assets under /panel/assets, every page route falls back to index.html).
 *
 * No React plugin: production JSX is compiled by Vite's own transformer (automatic runtime);
 * the plugin only adds fast refresh to the dev server, and its peer dependencies clash with the
 * Babel that jest pulls in.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/panel/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // The CSP allows scripts from 'self' only: no inline bootstrap, no polyfill injected into the page.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: true,
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      // "use client" markers of React libraries mean nothing in a client-only bundle.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    // `npx vite services/panel/web` for development: the API comes from a running panel (PANEL_PORT).
    proxy: { '/panel/api': `http://127.0.0.1:${process.env.PANEL_PORT ?? '8090'}`, '/api-keys': `http://127.0.0.1:${process.env.PANEL_PORT ?? '8090'}` },
  },
});
