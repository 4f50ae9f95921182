import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// The console is served by the control plane at `/`: index.html without caching, everything under
// `/assets/` by content hash and cached for a year. Nothing is loaded from elsewhere.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic' } },
  // `npx vite --config apps/console/vite.config.ts` serves the console from its sources, with the API
  // of a control plane running on this machine (CORRAL_DEV_API, default https://127.0.0.1:8006).
  server: {
    proxy: {
      '/api2': { target: process.env['CORRAL_DEV_API'] ?? 'https://127.0.0.1:8006', secure: false, ws: true, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Fonts and icons stay files of their own, loaded only when used.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      // React libraries mark their modules "use client", which means nothing outside server components.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
