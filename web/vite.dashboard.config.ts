import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** The dashboard: served by the app at /dashboard, /dashboard/setup and /dashboard/login, its assets under /dashboard/assets/. */
export default defineConfig({
  root: here('./dashboard'),
  base: '/dashboard/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: here('./dist/dashboard'),
    emptyOutDir: true,
    target: 'es2020',
    // The preload polyfill and inline module scripts would need 'unsafe-inline' under the dashboard's CSP.
    modulePreload: false,
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
