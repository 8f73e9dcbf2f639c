/** Types of handler.mjs (hand-written: the example is plain JavaScript with no build step). */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface IntegratorHandlerOptions {
  /** The rentpay deployment as browsers reach it, e.g. "http://127.0.0.1:8080" (no trailing slash needed). */
  serviceUrl: string;
  /** The integrator's server token; used in server-side requests only. */
  serverToken: string;
  /** The integrator's webhook secret, `whsec_…`. */
  webhookSecret: string;
  /** Where the handler is mounted, e.g. "/demo"; default "" (the server's root). */
  basePath?: string;
  /** Makes the Integration API calls; default the global fetch. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** What the page says when the integrator has no webhook URL; default: how to set one. */
  noWebhookUrlNotice?: string;
  /** The User onboarded; default sampleTenant(serviceUrl). */
  tenant?: ReturnType<typeof sampleTenant>;
}

export type IntegratorHandler = (req: IncomingMessage, res: ServerResponse) => void;

export declare function createIntegratorHandler(options: IntegratorHandlerOptions): IntegratorHandler;

export declare function sampleTenant(serviceUrl: string): {
  user_id: number;
  email: string;
  first_name: string;
  last_name: string;
  phone_number: string;
  date_of_birth: string;
  tenant: [{ amount: string; payment_reference: string; [field: string]: unknown }];
  kyc: Record<string, unknown>;
};

export declare class RentpayApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(method: string, path: string, status: number, body: unknown);
}
