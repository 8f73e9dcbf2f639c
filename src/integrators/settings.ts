import { type FieldErrors, FieldValidationError } from '../platform/errors.ts';
import { parsePence, parsePercentBps } from '../shared/money.ts';
import type { PaymentMethod } from '../shared/vocabulary.ts';
import type { UpdateIntegratorBody } from './schemas.ts';
import type { FeatureSettings, IntegratorSettings, MethodFee } from './service.ts';

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
  if (body.features !== undefined) settings.features = body.features as FeatureSettings;
  if (body.rate_limit_per_second !== undefined) settings.rate_limit_per_second = body.rate_limit_per_second;
  if (body.rate_limit_burst !== undefined) settings.rate_limit_burst = body.rate_limit_burst;
  if (body.reminder_days_before !== undefined) settings.reminder_days_before = body.reminder_days_before;
  if (Object.keys(errors).length > 0) throw new FieldValidationError(errors);
  return settings;
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
