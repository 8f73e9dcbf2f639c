import { Type } from 'typebox';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_MESSAGE } from '../platform/http/schemas.ts';
import { ERROR_MESSAGE } from '../platform/http/validation.ts';

/**
 * The scheduler's payments are stored in the schedule's session with keys `{schedule_id}:{due_date}:{attempt}`, and
 * schedule ids start with `sch_`: a client key there could take a scheduled charge's key (or answer its payment).
 */
export const SCHEDULER_KEY_PREFIX = 'sch_';
export const SCHEDULER_KEY_MESSAGE =
  'Keys starting with "sch_" are reserved for recurring payments; use another key.';

/**
 * A payment's idempotency key in a body: IDEMPOTENCY_KEY's form, and not one of the scheduler's. A key of the wrong
 * form gets only that message (the reserved prefix is checked on keys of the right form).
 */
export const IdempotencyKeyInput = Type.String({
  allOf: [
    { pattern: IDEMPOTENCY_KEY.source, [ERROR_MESSAGE]: IDEMPOTENCY_KEY_MESSAGE },
    {
      not: { pattern: `^${SCHEDULER_KEY_PREFIX}[\\x21-\\x7e]{0,${255 - SCHEDULER_KEY_PREFIX.length}}$` },
      [ERROR_MESSAGE]: SCHEDULER_KEY_MESSAGE,
    },
  ],
  description:
    '1 to 255 printable ASCII characters without spaces, not starting with "sch_" (reserved for recurring ' +
    'payments). Or the Idempotency-Key header. A retry with the same key is the same payment.',
  examples: ['rent-2026-03-7f3a'],
});
