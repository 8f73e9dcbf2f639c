import type { ServiceEnv } from '../platform/config/config.ts';
import { type FieldErrors, FieldValidationError } from '../platform/errors.ts';
import { parsePence, parsePercentBps } from '../shared/money.ts';
import type { PaymentMethod } from '../shared/vocabulary.ts';
import type { UpdateIntegratorBody } from './schemas.ts';
import type { FeatureSettings, Integrator, IntegratorSettings, MethodFee } from './service.ts';

/** Checks what the schema cannot say and converts edge values (decimal strings) to internal ones (pence, bps). */
export function settingsFromBody(body: UpdateIntegratorBody): IntegratorSettings {
  const errors: FieldErrors = {};
  const settings: IntegratorSettings = {};
  if (body.name !== undefined) settings.name = body.name.trim();
  if (body.name !== undefined && settings.name === '') errors.name = ['This field may not be blank.'];
  if (body.webhook_url !== undefined) {
    if (body.webhook_url !== null && !/^https?:$/.test(safeProtocol(body.webhook_url))) {
      errors.webhook_url = ['Enter an http or https URL.'];
    }
    settings.webhook_url = body.webhook_url;
  }
  if (body.allowed_origins !== undefined) {
    const origins: string[] = [];
    body.allowed_origins.forEach((value, index) => {
      const origin = normaliseOrigin(value);
      if (value.includes('*')) {
        errors[`allowed_origins.${index}`] = [
          'Wildcards are not allowed: list each origin that may show the page, e.g. https://app.platform.example.',
        ];
      } else if (origin === undefined) {
        errors[`allowed_origins.${index}`] = [
          'Enter an origin: scheme, host and optional port, e.g. https://platform.example.',
        ];
      } else if (!origins.includes(origin)) {
        origins.push(origin);
      }
    });
    settings.allowed_origins = origins;
  }
  if (body.fees !== undefined) {
    const fees: Partial<Record<PaymentMethod, MethodFee>> = {};
    for (const [method, fee] of Object.entries(body.fees) as [
      PaymentMethod,
      { percent: string; fixed: string },
    ][]) {
      const percent_bps = parsePercentBps(fee.percent);
      const fixed_pence = parsePence(fee.fixed);
      if (percent_bps === undefined) errors[`fees.${method}.percent`] = ['Enter a percentage from 0 to 100.'];
      if (fixed_pence === undefined)
        errors[`fees.${method}.fixed`] = ['Enter an amount in pounds, e.g. "0.20".'];
      if (percent_bps !== undefined && fixed_pence !== undefined) fees[method] = { percent_bps, fixed_pence };
    }
    settings.fees = fees;
  }
  if (body.business_lets !== undefined) settings.business_lets = body.business_lets;
  if (body.features !== undefined) settings.features = body.features as FeatureSettings;
  if (body.rate_limit_per_second !== undefined) settings.rate_limit_per_second = body.rate_limit_per_second;
  if (body.rate_limit_burst !== undefined) settings.rate_limit_burst = body.rate_limit_burst;
  if (body.reminder_days_before !== undefined) settings.reminder_days_before = body.reminder_days_before;
  if (Object.keys(errors).length > 0) throw new FieldValidationError(errors);
  return settings;
}

const TENANT_FEES_LAW = 'UK law bans surcharges on consumer card payments and, in England, most tenant fees.';

const TENANT_FEES_REFUSED =
  `Fees charged to tenants are refused in production: ${TENANT_FEES_LAW} Set business_lets to true only if ` +
  "this platform's tenants are businesses, not consumers; otherwise set every fee to 0.";

const BUSINESS_LETS_REQUIRED =
  `business_lets can be false in production only while every fee is 0: ${TENANT_FEES_LAW} Set every fee to 0 ` +
  "first (or in the same request), or keep business_lets true if this platform's tenants are businesses, not consumers.";

/**
 * A production integrator charges tenants a fee only with the declaration that they are businesses (business_lets):
 * `resulting` is what the integrator would have after the change (stored merged with `sent`). The refusal names what
 * the request changed: `business_lets` when it turns the declaration off, `fees` otherwise (also when neither was
 * sent: fees stored before the declaration existed must be fixed before any other change).
 */
export function checkTenantFees(
  environment: ServiceEnv,
  resulting: Pick<Integrator, 'fees' | 'business_lets'>,
  sent: IntegratorSettings,
): void {
  if (environment !== 'production' || resulting.business_lets) return;
  const charged = Object.values(resulting.fees).some(
    (fee) => fee !== undefined && (fee.percent_bps > 0 || fee.fixed_pence > 0),
  );
  if (!charged) return;
  const errors: FieldErrors = {};
  if (sent.business_lets === false) errors.business_lets = [BUSINESS_LETS_REQUIRED];
  if (sent.fees !== undefined || sent.business_lets !== false) errors.fees = [TENANT_FEES_REFUSED];
  throw new FieldValidationError(errors);
}

function safeProtocol(value: string): string {
  try {
    return new URL(value).protocol;
  } catch {
    return '';
  }
}

function normaliseOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    return undefined;
  }
  if (value.replace(/\/$/, '') !== url.origin) return undefined;
  return url.origin;
}
