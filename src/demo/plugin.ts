/**
 * `/demo` (sandbox only): the example integrator of examples/integrator/ (handed in by src/app.ts, so that
 * nothing here depends on the example), mounted inside the service so that
 * `npm start` shows a platform using rentpay both ways and receiving its webhooks. It is an integrator like any
 * other: its own integrator row, its own server token (kept in this process's memory only; the database holds
 * the hash, as for every token), and it calls the real Integration API, through app.inject, so the token never
 * crosses a network either.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { SYSTEM_ACTOR } from '../audit/actor.ts';
import {
  claimDeploymentState,
  readDeploymentState,
  recordDeploymentState,
} from '../platform/db/deployment-state.ts';
import { webhookUrlProblem } from '../webhooks/address.ts';

type IntegratorHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** What the demo mounts: the example integrator's createIntegratorHandler, handed in by the composition root. */
export interface DemoOptions {
  createIntegratorHandler(options: {
    serviceUrl: string;
    serverToken: string;
    webhookSecret: string;
    basePath: string;
    fetch: (url: string, init: RequestInit) => Promise<Response>;
    noWebhookUrlNotice: string | undefined;
  }): IntegratorHandler;
}

export const DEMO_INTEGRATOR_NAME = 'Demo platform (built-in /demo)';
export const DEMO_PATH = '/demo';
const STATE_KEY = 'builtin_demo_integrator';
/**
 * Each start issues a new token; the one before keeps working at most this long, so two processes serving
 * /demo on one database both keep working (each issues again when its own has ended: see injectFetch).
 */
const TOKEN_GRACE_SECONDS = 900;
/** A claim of the demo integrator's creation older than this, with no integrator recorded, was abandoned. */
const CLAIM_TIMEOUT_MS = 60_000;

/** The deployment's address as browsers use it: PUBLIC_URL, or with PORT=0 the port really listened on. */
function publicUrl(app: FastifyInstance): string {
  const { config } = app.ctx;
  const address = app.server.address();
  if (config.port === 0 && address && typeof address === 'object') {
    return `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  }
  return config.publicUrl;
}

/**
 * The demo integrator's id, created on first use by exactly one process (others wait for it), with its
 * allowed origin and webhook URL set to this deployment's.
 */
async function demoIntegratorId(
  app: FastifyInstance,
  settings: { allowed_origins: string[]; webhook_url: string | null },
): Promise<string> {
  const { db, clock, integrators } = app.ctx;
  for (let attempt = 0; ; attempt += 1) {
    const now = clock.now();
    if (await claimDeploymentState(db, STATE_KEY, now, new Date(now.getTime() - CLAIM_TIMEOUT_MS))) {
      const { integrator } = await integrators.create(
        { name: DEMO_INTEGRATOR_NAME, ...settings },
        SYSTEM_ACTOR,
      );
      await recordDeploymentState(db, STATE_KEY, { integrator_id: integrator.id }, clock.now());
      return integrator.id;
    }
    const id = (await readDeploymentState<{ integrator_id?: string }>(db, STATE_KEY))?.integrator_id;
    if (id) {
      await integrators.update(id, settings, SYSTEM_ACTOR);
      return id;
    }
    if (attempt >= 50) throw new Error('The demo integrator is being created by another process; try again.');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function setUp(
  app: FastifyInstance,
  { createIntegratorHandler }: DemoOptions,
): Promise<IntegratorHandler> {
  const { config, integrators } = app.ctx;
  const serviceUrl = publicUrl(app);
  const webhookUrl = `${serviceUrl}${DEMO_PATH}/webhooks`;
  // Never a URL the delivery would refuse: that would only leave failed deliveries behind.
  const refused = await webhookUrlProblem(webhookUrl, { allowPrivate: config.allowPrivateWebhookHosts });
  const integratorId = await demoIntegratorId(app, {
    allowed_origins: [new URL(serviceUrl).origin],
    webhook_url: refused ? null : webhookUrl,
  });
  let token = await integrators.issueServerToken(integratorId, TOKEN_GRACE_SECONDS, SYSTEM_ACTOR);
  let reissuing: Promise<string> | undefined;
  const { webhook_secret } = await integrators.get(integratorId);

  const inject = (url: string, init: RequestInit, withToken: string) => {
    const target = new URL(url);
    const headers = Object.fromEntries(new Headers(init.headers));
    return app.inject({
      method: (init.method ?? 'GET') as HTTPMethods,
      url: `${target.pathname}${target.search}`,
      headers: { ...headers, authorization: `Token ${withToken}` },
      ...(typeof init.body === 'string' ? { payload: init.body } : {}),
    });
  };
  /** The handler's fetch: the Integration API in process, with the current token (a new one after a 401). */
  const injectFetch = async (url: string, init: RequestInit): Promise<Response> => {
    const used = token;
    let response = await inject(url, init, used);
    if (response.statusCode === 401) {
      // Ended by a later start (another process's) or by a rotation: issue another, once for all callers.
      if (token === used) {
        reissuing ??= integrators
          .issueServerToken(integratorId, TOKEN_GRACE_SECONDS, SYSTEM_ACTOR)
          .finally(() => {
            reissuing = undefined;
          });
        token = await reissuing;
      }
      response = await inject(url, init, token);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const empty = response.statusCode === 204 || response.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(response.rawPayload), {
      status: response.statusCode,
      headers,
    });
  };

  return createIntegratorHandler({
    serviceUrl,
    serverToken: token,
    webhookSecret: webhook_secret,
    basePath: DEMO_PATH,
    fetch: injectFetch,
    noWebhookUrlNotice: refused
      ? `No webhooks will arrive here: rentpay sends none to ${webhookUrl}, a private or loopback address, ` +
        'unless it runs with ALLOW_PRIVATE_WEBHOOK_HOSTS=1 (for local testing only). Restart it with ' +
        `"ALLOW_PRIVATE_WEBHOOK_HOSTS=1 npm start" to see them listed. To receive webhooks on your own ` +
        'endpoint instead, with no flag, run "npx rentpay listen --forward-to http://localhost:3000/webhooks ' +
        `--token <server token>" and verify them with the secret it prints. (${refused})`
      : undefined,
  });
}

/**
 * The routes under /demo. Registered in sandbox only (src/app.ts), and refusing to do anything elsewhere all
 * the same: a demo integrator never exists in production.
 */
export default async function demoPlatform(app: FastifyInstance, options: DemoOptions): Promise<void> {
  if (app.ctx.config.serviceEnv !== 'sandbox') return;
  // The handler reads bodies itself: a webhook's signature covers its raw bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  let handler: Promise<IntegratorHandler> | undefined;
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    handler ??= setUp(app, options).catch((error) => {
      handler = undefined;
      throw error;
    });
    const handle = await handler;
    reply.hijack();
    handle(request.raw, reply.raw);
  };
  for (const url of [DEMO_PATH, `${DEMO_PATH}/*`]) {
    app.route({ method: ['GET', 'POST'], url, schema: { hide: true }, handler: serve });
  }
}
