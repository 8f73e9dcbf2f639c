import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { loadStaticDirectory, sendStaticFile } from '../platform/http/static-files.ts';

export const DASHBOARD_BUILD_DIR = fileURLToPath(new URL('../../web/dist/dashboard/', import.meta.url));
const ASSET_NAME = /^[A-Za-z0-9._-]{1,128}$/;
/** The dashboard's pages: one built index.html, which shows the page its path names. */
export const DASHBOARD_PAGES = ['/dashboard', '/dashboard/setup', '/dashboard/login'] as const;

/**
 * Same-origin everything: its scripts and styles are its own files, it talks to /api/dashboard only, the QR code of
 * the set-up page is a data: image, and no site may frame it (a signed-in page in a frame invites clickjacking).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The dashboard's pages (set-up from an invite, sign-in, the signed-in pages) at /dashboard…, and their
 * content-hashed assets under /dashboard/assets/. The pages are never cached; they hold nothing of the person's
 * (that comes from /api/dashboard once the page runs).
 */
export function dashboardPages(options: { buildDir?: string } = {}): FastifyPluginAsync {
  const dir = options.buildDir ?? DASHBOARD_BUILD_DIR;
  return async (app) => {
    const files = loadStaticDirectory(dir);
    if (!files) {
      app.log.warn(
        { dir },
        'the dashboard is not built; run "npm run build:web" (npm start and npm test do it)',
      );
    }
    const notBuilt = (reply: FastifyReply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The dashboard has not been built on this server. Run "npm run build:web".');

    for (const path of DASHBOARD_PAGES) {
      app.get(path, { schema: { hide: true } }, async (request, reply) => {
        const index = files?.get('index.html');
        if (!index) return notBuilt(reply);
        reply.header('content-security-policy', DASHBOARD_CSP);
        reply.header('x-frame-options', 'DENY');
        reply.header('referrer-policy', 'no-referrer');
        reply.header('cross-origin-opener-policy', 'same-origin');
        return sendStaticFile(request, reply, index, 'no-store');
      });
    }
    // A trailing slash (or the Vite base typed by hand) finds the page too.
    app.get('/dashboard/', { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect('/dashboard', 308),
    );

    app.get('/dashboard/assets/:name', { schema: { hide: true } }, async (request, reply) => {
      const { name } = request.params as { name: string };
      if (!files) return notBuilt(reply);
      const file = ASSET_NAME.test(name) ? files.get(`assets/${name}`) : undefined;
      if (!file) {
        return reply.code(404).send({ error: 'not_found', detail: `No dashboard asset ${name}.` });
      }
      return sendStaticFile(request, reply, file, 'immutable');
    });
  };
}
