import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** The hosted payment page: served by the app at /third-party, its assets under /third-party/assets/. */
export default defineConfig({
  root: here('./page'),
  base: '/third-party/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: here('./dist/page'),
    emptyOutDir: true,
    target: 'es2020',
    // The preload polyfill and inline module scripts would need 'unsafe-inline' under the page's CSP.
    modulePreload: false,
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
