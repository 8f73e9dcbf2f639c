/** What an attempt's answer makes of a recurring charge: every kind of answer and charge state, in one table. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AttemptAnswer, afterAttempt, confirmByOf } from '../../src/schedules/charge-rules.ts';

const FIRST = '2026-03-01';
const OK = { ok: true } as const;
const DECLINED = { ok: false, code: 'card_declined' } as const;
const NEEDS_TENANT = { ok: false, code: 'authentication_required', waitsForTenant: true } as const;
const NEEDS_TENANT_NO_WAIT = { ok: false, code: 'authentication_required' } as const;
const CARD_GONE = { ok: false, code: 'card_unavailable' } as const;

type Row = [
  string,
  Pick<AttemptAnswer, 'attempt' | 'result' | 'chargeStatus' | 'scheduleStatus'>,
  { status: string; retryOn: string | null },
];

const TABLE: Row[] = [
  [
    'paid on the first attempt',
    { attempt: 1, result: OK, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'succeeded', retryOn: null },
  ],
  [
    'declined first: retried the day after',
    { attempt: 1, result: DECLINED, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'pending', retryOn: '2026-03-02' },
  ],
  [
    'declined second: retried three days after the first',
    { attempt: 2, result: DECLINED, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'pending', retryOn: '2026-03-04' },
  ],
  [
    'declined third: failed',
    { attempt: 3, result: DECLINED, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'failed', retryOn: null },
  ],
  [
    'the card is gone: failed at once',
    { attempt: 1, result: CARD_GONE, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'failed', retryOn: null },
  ],
  [
    'the bank wants the tenant, who can still confirm it: waits for them',
    { attempt: 1, result: NEEDS_TENANT, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'requires_action', retryOn: null },
  ],
  [
    'the bank wants the tenant on a retry: waits for them too',
    { attempt: 2, result: NEEDS_TENANT, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'requires_action', retryOn: null },
  ],
  [
    'the bank wants the tenant and the processor cannot bring them back: failed',
    { attempt: 1, result: NEEDS_TENANT_NO_WAIT, chargeStatus: 'pending', scheduleStatus: 'active' },
    { status: 'failed', retryOn: null },
  ],
  [
    'the bank wants the tenant of a schedule paused meanwhile: failed, nothing waits',
    { attempt: 1, result: NEEDS_TENANT, chargeStatus: 'pending', scheduleStatus: 'paused' },
    { status: 'failed', retryOn: null },
  ],
  [
    'declined while the schedule was paused: withdrawn',
    { attempt: 1, result: DECLINED, chargeStatus: 'pending', scheduleStatus: 'paused' },
    { status: 'canceled', retryOn: null },
  ],
  [
    'declined while the schedule was canceled: withdrawn',
    { attempt: 1, result: DECLINED, chargeStatus: 'pending', scheduleStatus: 'canceled' },
    { status: 'canceled', retryOn: null },
  ],
  [
    'declined, its charge withdrawn meanwhile: stays withdrawn',
    { attempt: 1, result: DECLINED, chargeStatus: 'canceled', scheduleStatus: 'active' },
    { status: 'canceled', retryOn: null },
  ],
  [
    'paid although its charge was withdrawn meanwhile: paid',
    { attempt: 1, result: OK, chargeStatus: 'canceled', scheduleStatus: 'canceled' },
    { status: 'succeeded', retryOn: null },
  ],
  [
    'the bank wants the tenant, its charge withdrawn meanwhile: failed for good',
    { attempt: 1, result: NEEDS_TENANT, chargeStatus: 'canceled', scheduleStatus: 'active' },
    { status: 'failed', retryOn: null },
  ],
];

describe('afterAttempt', () => {
  for (const [name, answer, expected] of TABLE) {
    it(name, () => assert.deepEqual(afterAttempt({ ...answer, firstAttemptOn: FIRST }), expected));
  }
});

describe('confirmByOf', () => {
  it('is the last day a refused charge would have been retried', () => {
    assert.equal(confirmByOf('2026-03-01'), '2026-03-04');
    assert.equal(confirmByOf('2026-12-30'), '2027-01-02');
  });
});
