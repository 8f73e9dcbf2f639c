import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** The client SDK: /sdk/rentpay.js (ES module) and /sdk/rentpay.umd.js (global SVC), plus its types. */
export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: here('./dist/sdk'),
    emptyOutDir: true,
    target: 'es2019',
    sourcemap: false,
    lib: {
      entry: here('./sdk/index.ts'),
      name: 'SVC',
      formats: ['es', 'umd'],
      fileName: (format) => (format === 'es' ? 'rentpay.js' : 'rentpay.umd.js'),
    },
    rollupOptions: { output: { exports: 'default' } },
  },
  plugins: [
    {
      name: 'rentpay-sdk-types',
      closeBundle() {
        fs.copyFileSync(here('./sdk/rentpay.d.ts'), here('./dist/sdk/rentpay.d.ts'));
      },
    },
  ],
});
