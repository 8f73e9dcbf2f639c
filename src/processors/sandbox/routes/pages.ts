import fs from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import QRCode from 'qrcode';
import { Type } from 'typebox';
import { money } from '../../../shared/display.ts';
import { parsePence } from '../../../shared/money.ts';
import { type ApmMethod, WALLET_METHODS } from '../../../shared/vocabulary.ts';
import type { ChallengeKind, SandboxChallenge, SandboxProcessor } from '../processor.ts';
import { CHALLENGES } from './challenges.ts';

/** Every sandbox page and asset: same-origin scripts and styles only; framed by any page (the hosted page). */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors *; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const PROVIDER_NAMES: Record<ApmMethod | (typeof WALLET_METHODS)[number], string> = {
  alipay: 'Alipay',
  unionpay: 'UnionPay',
  wechat_pay: 'WeChat Pay',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
};

const ASSETS: Record<string, { file: string; type: string }> = {
  'sandbox-page.js': { file: 'sandbox-page.js', type: 'text/javascript; charset=utf-8' },
  'sandbox-page.css': { file: 'sandbox-page.css', type: 'text/css; charset=utf-8' },
};

function readAsset(file: string): Buffer {
  return fs.readFileSync(new URL(`../pages/${file}`, import.meta.url));
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

interface Page {
  title: string;
  /** data- attributes of <main>, for sandbox-page.js (names in kebab case). */
  data?: Record<string, string>;
  amount?: string;
  notes: string[];
  /** Authorise and Fail, when something waits for them. */
  buttons: boolean;
}

export function renderPage(page: Page): string {
  const data = Object.entries(page.data ?? {})
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  const amount = page.amount
    ? `\n    <p class="amount">Amount: <strong>${escapeHtml(page.amount)}</strong></p>`
    : '';
  const notes = page.notes.map((note) => `\n    <p class="note">${escapeHtml(note)}</p>`).join('');
  // Disabled until the page's script has its listeners on them: a click that came first would do nothing.
  const buttons = page.buttons
    ? `
    <div class="actions">
      <button type="button" class="primary" data-outcome="authorise" disabled>Authorise</button>
      <button type="button" data-outcome="fail" disabled>Fail</button>
    </div>
    <p class="error" role="alert" hidden></p>`
    : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="robots" content="noindex">
    <title>${escapeHtml(page.title)} · rentpay</title>
    <link rel="stylesheet" href="/sandbox/assets/sandbox-page.css">
    <script type="module" src="/sandbox/assets/sandbox-page.js"></script>
  </head>
  <body>
  <main class="sheet"${data}>
    <p class="badge">Sandbox</p>
    <h1>${escapeHtml(page.title)}</h1>${amount}${notes}${buttons}
  </main>
  </body>
</html>
`;
}

function send(reply: FastifyReply, status: number, type: string, body: string | Buffer): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).header('content-type', type).send(body);
}

function sendPage(reply: FastifyReply, status: number, page: Page): FastifyReply {
  return send(reply, status, 'text/html; charset=utf-8', renderPage(page));
}

function notFound(reply: FastifyReply, what: string): FastifyReply {
  return sendPage(reply, 404, {
    title: 'Not found (sandbox)',
    notes: [`There is no such sandbox ${what}. Check the link, or start the payment again.`],
    buttons: false,
  });
}

function challengePage(kind: ChallengeKind, charge: SandboxChallenge): Page {
  const waiting = charge.status === 'action_required';
  const provider = PROVIDER_NAMES[charge.method as ApmMethod] ?? charge.method;
  const notes =
    kind === 'three_ds'
      ? [
          charge.amount_pence === 0
            ? 'Your bank wants to check it is you before the card is saved. Nothing is charged.'
            : 'Your bank wants to check it is you before the payment.',
          'This page plays the card issuer: Authorise passes the check, Fail fails it.',
        ]
      : [`This page plays ${provider}: Authorise approves the payment, Fail declines it.`];
  if (!waiting) notes.push('Nothing waits here any more: this was answered, cancelled or expired.');
  return {
    title: kind === 'three_ds' ? '3D Secure check (sandbox)' : `${provider} (sandbox)`,
    data: { kind, 'charge-id': charge.id },
    ...(charge.amount_pence > 0 ? { amount: money(charge.amount_pence) } : {}),
    notes,
    buttons: waiting,
  };
}

const ChargeParams = Type.Object({ charge_id: Type.String({ maxLength: 64 }) });

/** The sandbox's HTML pages: the 3DS challenge, the APM providers' pages and their QR codes, the wallet sheet. */
export function sandboxPageRoutes(processor: SandboxProcessor): FastifyPluginAsyncTypebox {
  const assets = new Map(
    Object.entries(ASSETS).map(([name, asset]) => [name, { body: readAsset(asset.file), type: asset.type }]),
  );
  return async (app) => {
    app.get(
      '/sandbox/assets/:name',
      { schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 64 }) }) } },
      async (request, reply) => {
        const asset = assets.get(request.params.name);
        if (!asset) return notFound(reply, 'file');
        return send(reply, 200, asset.type, asset.body);
      },
    );

    for (const [kind, challenge] of Object.entries(CHALLENGES) as [
      ChallengeKind,
      (typeof CHALLENGES)[ChallengeKind],
    ][]) {
      app.get(
        `/sandbox/${challenge.path}/:charge_id`,
        { schema: { hide: true, params: ChargeParams } },
        async (request, reply) => {
          const charge = await processor.challenge(request.params.charge_id, kind);
          if (!charge) return notFound(reply, 'charge');
          return sendPage(reply, 200, challengePage(kind, charge));
        },
      );
    }

    app.get(
      '/sandbox/apm/:charge_id/qr.svg',
      { schema: { hide: true, params: ChargeParams } },
      async (request, reply) => {
        const charge = await processor.challenge(request.params.charge_id, 'apm');
        if (!charge) return notFound(reply, 'charge');
        const svg = await QRCode.toString(processor.apmPageUrl(charge.id), { type: 'svg', margin: 2 });
        return send(reply, 200, 'image/svg+xml', svg);
      },
    );

    app.get(
      '/sandbox/wallet/:wallet',
      {
        schema: {
          hide: true,
          params: Type.Object({ wallet: Type.String({ maxLength: 64 }) }),
          querystring: Type.Object({ amount: Type.Optional(Type.String({ maxLength: 32 })) }),
        },
      },
      async (request, reply) => {
        const wallet = WALLET_METHODS.find((w) => w === request.params.wallet);
        if (!wallet) return notFound(reply, 'wallet');
        const pence = request.query.amount === undefined ? undefined : parsePence(request.query.amount);
        const name = PROVIDER_NAMES[wallet];
        return sendPage(reply, 200, {
          title: `${name} (sandbox)`,
          data: { kind: 'wallet', wallet },
          ...(pence === undefined ? {} : { amount: money(pence) }),
          notes: [
            `This sheet plays ${name}: Authorise gives a Visa whose payment succeeds, Fail one whose payment is declined (card_declined).`,
          ],
          buttons: true,
        });
      },
    );
  };
}
