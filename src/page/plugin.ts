import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { loadStaticDirectory, sendStaticFile } from '../platform/http/static-files.ts';
import { frameAncestorsFor, isOrigin } from './frame-ancestors.ts';

export const PAGE_BUILD_DIR = fileURLToPath(new URL('../../web/dist/page/', import.meta.url));
const ASSET_NAME = /^[A-Za-z0-9._-]{1,128}$/;

function queryString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : undefined;
}

/**
 * Stripe's documented origins for Stripe.js, its frames (Payment Element, 3DS) and its API; with another Stripe.js
 * URL (a local stand-in in tests) its origin serves all three.
 */
export function stripeSources(jsUrl: string): { script: string[]; frame: string[]; connect: string[] } {
  const origin = new URL(jsUrl).origin;
  if (origin === 'https://js.stripe.com') {
    return {
      script: ['https://js.stripe.com', 'https://*.js.stripe.com'],
      frame: ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
      connect: ['https://api.stripe.com'],
    };
  }
  return { script: [origin], frame: [origin], connect: [origin] };
}

/**
 * The hosted payment page at /third-party and its content-hashed assets. The page itself is never cached: its
 * CSP names the integrator of the session it was opened for.
 */
export function hostedPage(options: {
  buildDir?: string;
  processorOrigin: string;
  /** Stripe mode: Stripe.js's URL, whose origins the page's CSP then allows (only then). */
  stripeJsUrl?: string;
}): FastifyPluginAsync {
  const stripe = options.stripeJsUrl ? stripeSources(options.stripeJsUrl) : undefined;
  const extra = (sources: string[] | undefined) => (sources ? ` ${sources.join(' ')}` : '');
  return async (app) => {
    const files = loadStaticDirectory(options.buildDir ?? PAGE_BUILD_DIR);
    if (!files) {
      app.log.warn(
        { dir: options.buildDir ?? PAGE_BUILD_DIR },
        'the payment page is not built; run "npm run build:web" (npm start and npm test do it)',
      );
    }
    const notBuilt = (reply: FastifyReply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The payment page has not been built on this server. Run "npm run build:web".');

    app.get('/third-party', { schema: { hide: true } }, async (request, reply) => {
      const index = files?.get('index.html');
      if (!index) return notBuilt(reply);
      const query = request.query as Record<string, unknown>;
      const allowed = await frameAncestorsFor(
        app.ctx.db,
        queryString(query.token),
        queryString(query.session_id),
      );
      // Inside the SDK's iframe the page talks to the parent origin it was given; only an allowed one may frame it.
      const sdkOrigin = query.sdk === '1' ? queryString(query.origin) : undefined;
      let ancestors = allowed ?? [];
      if (sdkOrigin !== undefined) ancestors = ancestors.filter((origin) => origin === sdkOrigin);
      // A token no session has names no integrator, and the page can show nothing but "Session expired". In the
      // SDK it may then be framed by the origin that asked, so init rejects with session_expired at once instead
      // of waiting out its load timeout.
      if (allowed === undefined && sdkOrigin !== undefined && isOrigin(sdkOrigin)) ancestors = [sdkOrigin];
      const processor = options.processorOrigin;
      reply.header(
        'content-security-policy',
        [
          "default-src 'none'",
          `script-src 'self'${extra(stripe?.script)}`,
          "style-src 'self'",
          `img-src 'self' data: ${processor}`,
          `connect-src 'self' ${processor}${extra(stripe?.connect)}`,
          `frame-src 'self' ${processor}${extra(stripe?.frame)}`,
          "form-action 'none'",
          "base-uri 'none'",
          `frame-ancestors ${ancestors.length > 0 ? ancestors.join(' ') : "'none'"}`,
        ].join('; '),
      );
      reply.header('referrer-policy', 'no-referrer');
      return sendStaticFile(request, reply, index, 'no-store');
    });

    app.get('/third-party/assets/:name', { schema: { hide: true } }, async (request, reply) => {
      const { name } = request.params as { name: string };
      const file = ASSET_NAME.test(name) ? files?.get(`assets/${name}`) : undefined;
      if (!files) return notBuilt(reply);
      if (!file) {
        return reply.code(404).send({ error: 'not_found', detail: `No page asset ${name}.` });
      }
      return sendStaticFile(request, reply, file, 'immutable');
    });
  };
}
