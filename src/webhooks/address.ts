import dns from 'node:dns/promises';
import net from 'node:net';
import { FieldValidationError } from '../platform/errors.ts';
import { type AddressPolicy, checkUrl, FetchFailure, isPublicAddress } from '../platform/net/safe-fetch.ts';

const LOOKUP_TIMEOUT_MS = 3_000;

/**
 * Why a webhook URL may not be set, or undefined: http(s) only, no credentials, and (unless allowPrivate) a host
 * that is or resolves to public addresses only, as for documents. A name that does not resolve now is accepted:
 * the rule is applied again to the address connected to at each delivery.
 */
export async function webhookUrlProblem(
  raw: string,
  options: { allowPrivate: boolean; isAllowedAddress?: AddressPolicy; sandbox?: boolean },
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
    checkUrl(url);
  } catch (error) {
    return error instanceof FetchFailure ? error.reason : 'Enter a valid URL.';
  }
  if (options.allowPrivate) return undefined;
  const isAllowed = options.isAllowedAddress ?? isPublicAddress;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (net.isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      const answers = await Promise.race([
        dns.lookup(host, { all: true, verbatim: true }),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('lookup timed out')), LOOKUP_TIMEOUT_MS).unref(),
        ),
      ]);
      addresses = answers.map((answer) => answer.address);
    } catch {
      return undefined;
    }
  }
  const refused = addresses.find((address) => !isAllowed(address));
  if (refused === undefined) return undefined;
  const problem = `${host === refused ? 'The address' : `${host} resolves to`} ${refused}, which is private or loopback; webhook URLs must be on a public host.`;
  return options.sandbox ? `${problem} ${LOCAL_WEBHOOKS_HINT}` : problem;
}

/** How to receive webhooks on a developer's own machine, said where a local URL is refused in sandbox. */
export const LOCAL_WEBHOOKS_HINT =
  'To receive webhooks on this machine, run `rentpay listen --forward-to ' +
  'http://localhost:3000/webhooks` instead (it needs no URL here), or start rentpay with ' +
  'ALLOW_PRIVATE_WEBHOOK_HOSTS=1 to allow private addresses.';

/** For the operator's create and update and the integrator's own PUT: a refused URL is a 400 on `field`. */
export async function checkWebhookUrl(
  raw: string | null | undefined,
  options: { allowPrivate: boolean; isAllowedAddress?: AddressPolicy; sandbox?: boolean; field?: string },
): Promise<void> {
  if (raw === undefined || raw === null) return;
  const problem = await webhookUrlProblem(raw, options);
  if (problem) throw new FieldValidationError({ [options.field ?? 'webhook_url']: [problem] });
}
