import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import { loadStaticDirectory, sendStaticFile } from '../platform/http/static-files.ts';

export const SDK_BUILD_DIR = fileURLToPath(new URL('../../web/dist/sdk/', import.meta.url));
const SDK_FILES = ['rentpay.js', 'rentpay.umd.js', 'rentpay.d.ts'];

/**
 * The client SDK: /sdk/rentpay.js (ES module), /sdk/rentpay.umd.js (global SVC) and its types.
 * Any site may load it (an ES module is fetched with CORS); what it may do is decided by the user session
 * token and the page's frame-ancestors, not by who loads the script.
 */
export function sdkFiles(options: { buildDir?: string } = {}): FastifyPluginAsync {
  return async (app) => {
    const files = loadStaticDirectory(options.buildDir ?? SDK_BUILD_DIR);
    for (const name of SDK_FILES) {
      app.get(`/sdk/${name}`, { schema: { hide: true } }, async (request, reply) => {
        const file = files?.get(name);
        if (!file) {
          return reply
            .code(503)
            .type('text/plain; charset=utf-8')
            .send('The SDK has not been built on this server. Run "npm run build:web".');
        }
        reply.header('access-control-allow-origin', '*');
        reply.header('cross-origin-resource-policy', 'cross-origin');
        return sendStaticFile(request, reply, file, 'revalidate');
      });
    }
  };
}
