import { type FieldErrors, FieldValidationError } from '../platform/errors.ts';
import { fieldErrorsFromAjv } from '../platform/http/errors.ts';
import { dateProblem, textProblem } from '../platform/http/input-checks.ts';
import { compileBodyValidator } from '../platform/http/validation.ts';
import { numberToPence, parsePence } from '../shared/money.ts';
import { MAX_USERS_PER_REQUEST, TENANCY_TEXT_FIELDS, User, type UserInput } from './schemas.ts';

const validateUser = compileBodyValidator(User);

function add(errors: FieldErrors, path: string, message: string): void {
  const list = errors[path] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[path] = list;
}

function httpUrlProblem(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'Enter a valid URL.';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Enter an http or https URL.';
  if (parsed.username || parsed.password) return 'URLs with credentials are not allowed.';
  return undefined;
}

const BLANK = /^\s*$/;
const MAX_TENANCY_YEARS = 100;

/** The same day `years` later, as text (29 February may name a day that year lacks: it only bounds a comparison). */
function yearsAfter(date: string, years: number): string {
  return `${String(Number(date.slice(0, 4)) + years).padStart(4, '0')}${date.slice(4)}`;
}
const AMOUNT_PATTERN_MESSAGE = 'Enter a valid value.';

/** Why a tenancy amount string does not match the schema's pattern, in words that say how to fix it. */
function amountProblem(value: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return 'Enter the amount as a decimal string, e.g. "1200.00".';
  if (match[1] === '-') return 'Ensure this value is greater than 0.';
  if ((match[3] ?? '').length > 2) return 'Ensure that there are no more than 2 decimal places.';
  return 'Ensure that there are no more than 8 digits before the decimal point.';
}

/** Replaces the schema's generic pattern message for tenancy amounts with the specific reason. */
function refineAmountErrors(fields: FieldErrors, item: unknown, prefix: string): void {
  const tenant = (item as { tenant?: unknown } | null)?.tenant;
  if (!Array.isArray(tenant)) return;
  tenant.forEach((tenancy: unknown, j) => {
    const key = prefix === '' ? `tenant.${j}.amount` : `${prefix}.tenant.${j}.amount`;
    const amount = (tenancy as { amount?: unknown } | null)?.amount;
    const messages = fields[key];
    if (typeof amount === 'string' && messages?.includes(AMOUNT_PATTERN_MESSAGE)) {
      fields[key] = messages.map((m) => (m === AMOUNT_PATTERN_MESSAGE ? amountProblem(amount) : m));
    }
  });
}

/** Rules the schema cannot express: run only on a user that passed the schema. */
function checkUser(user: UserInput, prefix: string, errors: FieldErrors): void {
  const at = (path: string) => (prefix === '' ? path : `${prefix}.${path}`);
  const text = (path: string, value: string | null | undefined) => {
    const problem = typeof value === 'string' ? textProblem(value) : undefined;
    if (problem) add(errors, at(path), problem);
  };
  /** Adds the error of a date the schema let through but that is no real date; true when it is real. */
  const date = (path: string, value: string): boolean => {
    const problem = dateProblem(value);
    if (problem) add(errors, at(path), problem);
    return problem === undefined;
  };
  for (const field of ['first_name', 'last_name', 'phone_number'] as const) {
    if (BLANK.test(user[field])) add(errors, at(field), 'This field may not be blank.');
  }
  for (const field of ['email', 'first_name', 'last_name', 'phone_number'] as const) text(field, user[field]);
  date('date_of_birth', user.date_of_birth);
  for (const member of ['pii_front', 'pii_back', 'photo', 'status'] as const) {
    text(`kyc.${member}`, user.kyc[member]);
  }
  for (const member of ['pii_front', 'pii_back', 'photo'] as const) {
    const value = user.kyc[member];
    const problem = typeof value === 'string' ? httpUrlProblem(value) : undefined;
    if (problem) add(errors, at(`kyc.${member}`), problem);
  }
  user.tenant.forEach((tenancy, j) => {
    const t = (path: string) => at(`tenant.${j}.${path}`);
    for (const field of TENANCY_TEXT_FIELDS) {
      if (BLANK.test(tenancy[field])) add(errors, t(field), 'This field may not be blank.');
      text(`tenant.${j}.${field}`, tenancy[field]);
    }
    text(`tenant.${j}.agreement`, tenancy.agreement);
    const startReal = date(`tenant.${j}.start_rent_date`, tenancy.start_rent_date);
    const endReal = date(`tenant.${j}.end_rent_date`, tenancy.end_rent_date);
    if (startReal && endReal && tenancy.end_rent_date < tenancy.start_rent_date) {
      add(errors, t('end_rent_date'), 'Ensure this date is on or after start_rent_date.');
    }
    const latestEnd = yearsAfter(tenancy.start_rent_date, MAX_TENANCY_YEARS);
    if (startReal && endReal && tenancy.end_rent_date > latestEnd) {
      add(
        errors,
        t('end_rent_date'),
        `A tenancy spans at most ${MAX_TENANCY_YEARS} years: ensure this date is on or before ${latestEnd}.`,
      );
    }
    if (parsePence(tenancy.amount) === 0) add(errors, t('amount'), 'Ensure this value is greater than 0.');
    const agreementProblem = httpUrlProblem(tenancy.agreement);
    if (agreementProblem) add(errors, t('agreement'), agreementProblem);
    const plan = tenancy.installment_payment;
    if (plan?.total_amount !== undefined && numberToPence(plan.total_amount) === undefined) {
      add(errors, t('installment_payment.total_amount'), 'Ensure this value has at most 2 decimal places.');
    }
    plan?.installments?.forEach((installment, k) => {
      const i = (path: string) => t(`installment_payment.installments.${k}.${path}`);
      if (installment.installment_number !== k + 1) {
        add(
          errors,
          i('installment_number'),
          `Installments are numbered 1, 2, 3, … without gaps: expected ${k + 1}.`,
        );
      }
      const previous = plan.installments?.[k - 1];
      if (previous && installment.due_date <= previous.due_date) {
        add(
          errors,
          i('due_date'),
          `Due dates must ascend: this one is not after installment ${k}'s (${previous.due_date}).`,
        );
      }
      if (numberToPence(installment.amount) === undefined) {
        add(errors, i('amount'), 'Ensure this value has at most 2 decimal places.');
      }
      date(`tenant.${j}.installment_payment.installments.${k}.due_date`, installment.due_date);
    });
  });
}

/**
 * Validates an onboarding body: one User or an array of 1 to 500. Returns the users, or throws the field errors
 * with dotted paths from the request root (`3.tenant.0.post_code` in an array body): every schema error of every
 * user at once; the rules between fields are checked only on users whose schema passed.
 */
export function validateOnboardingBody(body: unknown): UserInput[] {
  const isArray = Array.isArray(body);
  if (!isArray && (body === null || typeof body !== 'object')) {
    throw new FieldValidationError({
      non_field_errors: ['Expected a User object or an array of 1 to 500 User objects.'],
    });
  }
  const items: unknown[] = isArray ? body : [body];
  if (items.length === 0)
    throw new FieldValidationError({ non_field_errors: ['This list may not be empty.'] });
  if (items.length > MAX_USERS_PER_REQUEST) {
    throw new FieldValidationError({
      non_field_errors: [
        `Ensure this list has no more than ${MAX_USERS_PER_REQUEST} users; send more in further requests.`,
      ],
    });
  }
  const errors: FieldErrors = {};
  const seenUserIds = new Map<number, number>();
  const seenEmails = new Map<string, number>();
  const seenReferences = new Set<string>();
  items.forEach((item, index) => {
    const prefix = isArray ? String(index) : '';
    if (!validateUser(item)) {
      const fields = fieldErrorsFromAjv(validateUser.errors ?? [], prefix);
      refineAmountErrors(fields, item, prefix);
      Object.assign(errors, fields);
      return;
    }
    const user = item as UserInput;
    checkUser(user, prefix, errors);
    const at = (path: string) => (prefix === '' ? path : `${prefix}.${path}`);
    if (seenUserIds.has(user.user_id)) {
      add(
        errors,
        at('user_id'),
        'Duplicate user_id in this request. Send each user once, with all of their tenancies in its tenant list.',
      );
    }
    seenUserIds.set(user.user_id, index);
    const emailKey = user.email.toLowerCase();
    const emailOwner = seenEmails.get(emailKey);
    if (emailOwner !== undefined && emailOwner !== user.user_id) {
      add(
        errors,
        at('email'),
        'Another user in this request has this email. Give each user an email of its own (compared ignoring case).',
      );
    }
    seenEmails.set(emailKey, user.user_id);
    user.tenant.forEach((tenancy, j) => {
      if (seenReferences.has(tenancy.payment_reference)) {
        add(
          errors,
          at(`tenant.${j}.payment_reference`),
          'Duplicate payment_reference in this request. Give each tenancy a payment_reference of its own.',
        );
      }
      seenReferences.add(tenancy.payment_reference);
    });
  });
  if (Object.keys(errors).length > 0) throw new FieldValidationError(errors);
  return items as UserInput[];
}
