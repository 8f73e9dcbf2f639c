import { Type } from 'typebox';
import {
  type DeclineRecord,
  declineBlock,
  isIssuerDecline,
  reserveCardAttemptsSql,
  tooManyAttempts,
  USER_DECLINE_WINDOW_MS,
} from '../cards/card-testing.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';
import { rows } from '../platform/db/query-builder.ts';
import { type FieldValidationError, ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { jobOf } from '../platform/jobs/define.ts';
import { insertJobRecordsSql, jobRecords } from '../platform/jobs/queue.ts';
import type { AuthoriseRequest, CardDetails } from '../processors/processor.ts';
import { completeSessionsSql } from '../sessions/completion.ts';
import type { PaymentMethod } from '../shared/vocabulary.ts';
import type { PaymentEventUser } from './events.ts';
import type { PaymentAmounts } from './fees.ts';
import { paymentExpireJob } from './jobs/payment-expire.ts';
import { paymentReconcileJob, RECONCILE_AFTER_MS } from './jobs/payment-reconcile.ts';
import { FINAL, followOutcomes, type OutcomeServices, outcomeColumns } from './outcomes.ts';
import { paymentRows } from './rows.ts';
import { PAYMENT_ROW, type PaymentRow } from './view.ts';

/** A payment checked and resolved at the processor, to be written `processing`. */
export interface NewPayment {
  id: string;
  session: { id: string; integrator_id: string; user_id: string; tenancy_id: string; expires_at: Date };
  idempotencyKey: string;
  amounts: PaymentAmounts;
  method: PaymentMethod;
  /** The reference asked for, or else the tenancy's. */
  reference: string;
  processor: string;
  processorToken: string | null;
  /** The card's display details; null until then for a token described in the transaction (`described`). */
  card: CardDetails | null;
  savedCardId: string | null;
  /** Counts against the card-testing limits: reserved as a pending decline until the processor answers. */
  cardAttempt: boolean;
  /**
   * A token the processor describes inside this transaction (one that charges there), the payment having been
   * checked against nothing before it: its user's declines may refuse it here, and a token the processor does not
   * know refuses it with `unknown()`.
   */
  described: { unknown: () => FieldValidationError } | null;
  /** Its tenant, for the events of a payment decided in its own transaction. */
  who: PaymentEventUser;
}

/** Written; or an earlier payment of the same session and idempotency key (`raced`); or refused. */
export type NewPaymentResult =
  | { inserted: PaymentRow }
  | { raced: PaymentRow }
  | { refused: ServiceError | FieldValidationError };

/**
 * New payments in one statement, with their card attempts, their jobs and, for those that succeeded in this
 * transaction, their sessions completed.
 */
const INSERT_PAYMENTS = sqlStatement(
  PAYMENT_ROW,
  `WITH x AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
       id text, session_id text, integrator_id text, user_id text, tenancy_id text, decline_id text,
       decline_pending boolean, pure_amount_pence bigint,
       fee_pence bigint, amount_pence bigint, method text, card_brand text, card_last4 text, card_exp_month integer,
       card_exp_year integer, reference text, idempotency_key text, processor text, processor_token text,
       saved_card_id text, status text, processor_payment_id text, next_action jsonb, failure_code text,
       failure_message text, funds_now boolean)),
   declines AS (${reserveCardAttemptsSql({
     from: 'x WHERE x.decline_id IS NOT NULL',
     id: 'x.decline_id',
     integratorId: 'x.integrator_id',
     userId: 'x.user_id',
     sessionId: 'x.session_id',
     source: 'x.id',
     now: '$2',
     pending: 'x.decline_pending',
   })}),
   jobs AS (${insertJobRecordsSql('$3', '$2')} RETURNING id),
   completed AS (${completeSessionsSql({ from: "x WHERE x.status = 'succeeded'", sessionId: 'x.session_id', now: '$2' })})
   INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                         amount_pence, method, card_brand, card_last4, card_exp_month, card_exp_year, reference,
                         idempotency_key, processor, processor_token, saved_card_id, processor_payment_id,
                         next_action, failure_code, failure_message, funds_available_at, action_required_at,
                         created_at, updated_at)
   SELECT x.id, x.integrator_id, x.session_id, x.user_id, x.tenancy_id, x.status, x.pure_amount_pence, x.fee_pence,
          x.amount_pence, x.method, x.card_brand, x.card_last4, x.card_exp_month, x.card_exp_year, x.reference,
          x.idempotency_key, x.processor, x.processor_token, x.saved_card_id, x.processor_payment_id,
          x.next_action, x.failure_code, x.failure_message, CASE WHEN x.funds_now THEN $2::timestamptz END,
          CASE WHEN x.status = 'requires_action' THEN $2::timestamptz END, $2, $2
     FROM x
   RETURNING *`,
  { prepare: 'new-payments-insert' },
);

/**
 * Locks the sessions (ids in $1), then the users (ids in $2), each in id order; says which of the sessions are paid,
 * as their rows stand once locked (the latest committed).
 */
const LOCK_SESSIONS_AND_USERS = sqlStatement(
  Col.row({ completed: Type.Array(Col.text), users: Col.int }),
  `WITH s AS (
     SELECT id, completed_at FROM sessions WHERE id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
      ORDER BY id FOR UPDATE),
   u AS (
     SELECT id FROM users WHERE id = ANY (ARRAY(SELECT jsonb_array_elements_text($2::jsonb))) ORDER BY id
        FOR NO KEY UPDATE)
   SELECT (SELECT COALESCE(jsonb_agg(id) FILTER (WHERE completed_at IS NOT NULL), '[]'::jsonb) FROM s) AS completed,
          (SELECT count(*) FROM u)::int AS users`,
  { prepare: 'new-payments-lock' },
);

/**
 * Per new payment: the payment its session and key made before, whether its session has a payment that may still
 * charge, and (with a user_id: a card attempt) its user's declines since $2, pending ones included.
 */
const SESSION_STATES = sqlStatement(
  Col.row({
    session_id: Col.text,
    raced_id: Col.nullable(Col.text),
    in_flight: Col.nullable(Col.text),
    declines: Type.Array(Col.row({ session_id: Col.text, created_at: Col.text })),
  }),
  `WITH x AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(session_id text, idempotency_key text, user_id text))
   SELECT x.session_id,
          (SELECT p.id FROM payments p
            WHERE p.session_id = x.session_id AND p.idempotency_key = x.idempotency_key) AS raced_id,
          (SELECT p.id FROM payments p
            WHERE p.session_id = x.session_id AND p.status IN ('processing', 'requires_action') LIMIT 1) AS in_flight,
          COALESCE((SELECT jsonb_agg(jsonb_build_object('session_id', d.session_id, 'created_at', d.created_at))
                      FROM card_declines d
                     WHERE x.user_id IS NOT NULL AND d.user_id = x.user_id AND d.created_at > $2),
                   '[]'::jsonb) AS declines
     FROM x`,
  { prepare: 'new-payments-states' },
);

/**
 * Writes new payments `processing`, with their reconciliation and expiry jobs, in the caller's transaction: a few
 * statements however many. Each is checked with its session's row locked, so it sees every attempt committed
 * before it: a session already paid, or with a payment at the processor or waiting for 3DS, takes no other (a
 * second charge); a card attempt is counted as a pending decline with its user's row locked, so concurrent attempts
 * in any session, on any node, cannot all pass the card-testing limits. One result per payment, in order; each
 * session at most once.
 */
export async function insertNewPayments(
  tx: Queryable,
  services: OutcomeServices,
  batch: readonly NewPayment[],
): Promise<NewPaymentResult[]> {
  const sessionIds = batch.map((payment) => payment.session.id);
  if (new Set(sessionIds).size !== sessionIds.length) {
    throw new Error('A session is twice in one batch of new payments');
  }
  const cardUsers = [
    ...new Set(batch.filter((payment) => payment.cardAttempt).map((payment) => payment.session.user_id)),
  ];
  // A payment checked before its transaction was checked against its user's declines there, unless it is a card
  // attempt, checked here again with its user locked.
  const checksDeclines = (payment: NewPayment) => payment.cardAttempt || payment.described !== null;
  const now = services.clock.now();
  // Rows locked in id order, sessions before users, so two batches never wait for each other in a circle.
  const [locked] = await LOCK_SESSIONS_AND_USERS.rows(tx, [[...sessionIds].sort(), cardUsers.sort()]);
  const completed = new Set(locked!.completed);
  const states = await SESSION_STATES.rows(tx, [
    batch.map((payment) => ({
      session_id: payment.session.id,
      idempotency_key: payment.idempotencyKey,
      user_id: checksDeclines(payment) ? payment.session.user_id : null,
    })),
    new Date(now.getTime() - USER_DECLINE_WINDOW_MS),
  ]);
  const stateOf = new Map(states.map((state) => [state.session_id, state]));
  const racedIds = states.flatMap((state) => (state.raced_id ? [state.raced_id] : []));
  const raced = racedIds.length === 0 ? [] : await rows(tx, paymentRows().where('id', 'in', racedIds));
  const toDescribe = batch.filter(
    (payment) => payment.described !== null && !stateOf.get(payment.session.id)?.raced_id,
  );
  const descriptions =
    toDescribe.length === 0
      ? []
      : await services.processor.describeTokensInTransaction!(
          tx,
          toDescribe.map((payment) => ({ paymentToken: payment.processorToken!, method: payment.method })),
        );
  const cardOf = new Map(toDescribe.map((payment, n) => [payment.id, descriptions[n]]));
  // Pending rows are attempts still with the processor: counted, so concurrent attempts cannot all get through.
  const declines = new Map<string, DeclineRecord[]>();
  for (const payment of batch) {
    const userId = payment.session.user_id;
    const recent = stateOf.get(payment.session.id)?.declines ?? [];
    if (checksDeclines(payment) && !declines.has(userId)) {
      declines.set(
        userId,
        recent.map((decline) => ({
          session_id: decline.session_id,
          created_at: new Date(decline.created_at),
        })),
      );
    }
  }

  // undefined: accepted, to be written.
  const results: (NewPaymentResult | undefined)[] = [];
  const accepted: NewPayment[] = [];
  for (const payment of batch) {
    const state = stateOf.get(payment.session.id);
    const earlier = raced.find((row) => row.id === state?.raced_id);
    if (earlier) {
      results.push({ raced: earlier });
      continue;
    }
    // Refusals in the order of the checks made before a transaction: declines, then the token, then the session.
    const userDeclines = declines.get(payment.session.user_id);
    const block = checksDeclines(payment) && declineBlock(userDeclines!, payment.session, now);
    if (block) {
      results.push({ refused: tooManyAttempts(block) });
      continue;
    }
    const card = payment.described ? cardOf.get(payment.id) : payment.card;
    if (payment.described && !card) {
      results.push({ refused: payment.described.unknown() });
      continue;
    }
    const refused = refusal(completed.has(payment.session.id), state);
    if (refused) {
      results.push({ refused });
      continue;
    }
    // Counted for the attempts after it in this batch, as the row it writes counts for later ones.
    if (payment.cardAttempt) userDeclines!.push({ session_id: payment.session.id, created_at: now });
    accepted.push(card === payment.card ? payment : { ...payment, card: card ?? null });
    results.push(undefined);
  }

  // Nothing to write when every payment was refused or raced.
  if (accepted.length === 0) return results.map((result) => result!);
  // Charged here when the processor can do it in this transaction; otherwise written `processing`, to be sent.
  const outcomes = await services.processor.authoriseInTransaction?.(tx, accepted.map(authoriseRequestOf));
  // Each payment's columns as the processor's answer (if it gave one here) sets them.
  const decided = accepted.map((payment, n) => {
    const outcome = outcomes?.[n];
    const columns = outcome
      ? outcomeColumns(outcome, services.processor)
      : { ...NOT_YET_AUTHORISED, status: 'processing' as const };
    return { payment, outcome, columns, final: FINAL.includes(columns.status) };
  });
  const inserted = await INSERT_PAYMENTS.rows(tx, [
    decided.map(({ payment, outcome, columns, final }) => {
      // A card attempt counts as a pending decline while the processor may still answer; at an end, only an
      // issuer's decline is kept.
      const declineKept = final && outcome?.status === 'refused' && isIssuerDecline('card', outcome.code);
      return {
        id: payment.id,
        session_id: payment.session.id,
        integrator_id: payment.session.integrator_id,
        user_id: payment.session.user_id,
        tenancy_id: payment.session.tenancy_id,
        decline_id: payment.cardAttempt && (!final || declineKept) ? newId('dcl') : null,
        decline_pending: !final,
        pure_amount_pence: payment.amounts.purePence,
        fee_pence: payment.amounts.feePence,
        amount_pence: payment.amounts.amountPence,
        method: payment.method,
        card_brand: payment.card?.brand ?? null,
        card_last4: payment.card?.last4 ?? null,
        card_exp_month: payment.card?.exp_month ?? null,
        card_exp_year: payment.card?.exp_year ?? null,
        reference: payment.reference,
        idempotency_key: payment.idempotencyKey,
        processor: payment.processor,
        processor_token: payment.processorToken,
        saved_card_id: payment.savedCardId,
        ...columns,
      };
    }),
    now,
    jobRecords(
      decided.flatMap(({ payment, columns, final }) => {
        if (final) return [];
        return [
          // Asked again later with the same key, should its answer never be written.
          ...(columns.status === 'processing'
            ? [
                jobOf(
                  paymentReconcileJob,
                  { payment_id: payment.id },
                  { runAt: new Date(now.getTime() + RECONCILE_AFTER_MS) },
                ),
              ]
            : []),
          // A 3DS challenge or APM page nobody answers must not stay open past its session: a late answer would
          // charge.
          jobOf(
            paymentExpireJob,
            { payment_id: payment.id },
            { runAt: new Date(payment.session.expires_at) },
          ),
        ];
      }),
    ),
  ]);
  const byId = new Map(inserted.map((row) => [row.id, row]));
  if (outcomes) {
    const who = new Map(accepted.map((payment) => [payment.id, payment.who]));
    await followOutcomes(tx, services, inserted, now, {
      whoPaid: (payment) => who.get(payment.id),
      sessionsCompleted: true,
    });
  }
  return batch.map((payment, n) => results[n] ?? { inserted: byId.get(payment.id)! });
}

/** The columns an outcome sets, as they stand before the processor has answered. */
const NOT_YET_AUTHORISED = {
  processor_payment_id: null,
  next_action: null,
  failure_code: null,
  failure_message: null,
  funds_now: false,
};

/** What the processor is asked for a new payment: our payment id is its idempotency key. */
export function authoriseRequest(payment: {
  id: string;
  sessionId: string;
  integratorId: string;
  userId: string;
  amountPence: number;
  method: PaymentMethod;
  processorToken: string | null;
  reference: string;
}): AuthoriseRequest {
  return {
    idempotencyKey: payment.id,
    userId: payment.userId,
    metadata: { payment_id: payment.id, session_id: payment.sessionId, integrator_id: payment.integratorId },
    amountPence: payment.amountPence,
    currency: 'GBP',
    method: payment.method,
    paymentToken: payment.processorToken,
    reference: payment.reference,
  };
}

function authoriseRequestOf(payment: NewPayment): AuthoriseRequest {
  return authoriseRequest({
    id: payment.id,
    sessionId: payment.session.id,
    integratorId: payment.session.integrator_id,
    userId: payment.session.user_id,
    amountPence: payment.amounts.amountPence,
    method: payment.method,
    processorToken: payment.processorToken,
    reference: payment.reference,
  });
}

/** What a new payment is checked against before the processor is asked. */
export interface PaymentCheckInput {
  sessionId: string;
  idempotencyKey: string;
  userId: string;
}

export interface PaymentChecks {
  /** The payment this session and idempotency key made before, if one did. */
  earlier: PaymentRow | undefined;
  /** The user's declines of the last 24 hours, pending attempts included. */
  declines: DeclineRecord[];
}

/**
 * Per new payment to check: the payment its session and key made before, if one did, and its user's declines since
 * $2, pending attempts included.
 */
const PAYMENT_CHECKS = sqlStatement(
  Col.row({
    n: Col.int,
    earlier_id: Col.nullable(Col.text),
    declines: Type.Array(Col.row({ session_id: Col.text, created_at: Col.text })),
  }),
  `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(n int, session_id text, idempotency_key text, user_id text))
   SELECT x.n,
          (SELECT p.id FROM payments p
            WHERE p.session_id = x.session_id AND p.idempotency_key = x.idempotency_key) AS earlier_id,
          COALESCE((SELECT jsonb_agg(jsonb_build_object('session_id', d.session_id, 'created_at', d.created_at))
                      FROM card_declines d
                     WHERE d.user_id = x.user_id AND d.created_at > $2),
                   '[]'::jsonb) AS declines
     FROM x`,
  { prepare: 'new-payment-checks' },
);

/** The checks of several new payments, in one statement (and one more for the earlier payments of replays). */
export async function readPaymentChecks(
  db: Queryable,
  now: Date,
  inputs: readonly PaymentCheckInput[],
): Promise<PaymentChecks[]> {
  const found = await PAYMENT_CHECKS.rows(db, [
    inputs.map((input, n) => ({
      n,
      session_id: input.sessionId,
      idempotency_key: input.idempotencyKey,
      user_id: input.userId,
    })),
    new Date(now.getTime() - USER_DECLINE_WINDOW_MS),
  ]);
  const earlierIds = found.flatMap((row) => (row.earlier_id ? [row.earlier_id] : []));
  const earlier = earlierIds.length === 0 ? [] : await rows(db, paymentRows().where('id', 'in', earlierIds));
  const byN = new Map(found.map((row) => [row.n, row]));
  return inputs.map((_, n) => {
    const row = byN.get(n);
    return {
      earlier: earlier.find((payment) => payment.id === row?.earlier_id),
      declines: (row?.declines ?? []).map((decline) => ({
        session_id: decline.session_id,
        created_at: new Date(decline.created_at),
      })),
    };
  });
}

/** Why a session takes no new payment now: it is paid, or another payment of it may still charge. */
function refusal(
  completed: boolean,
  state: { in_flight: string | null } | undefined,
): ServiceError | undefined {
  if (completed) {
    return new ServiceError(
      'conflict',
      'This session has already been paid; log in again for another payment.',
    );
  }
  // A second attempt under another key while one is with the processor, or waiting for 3DS that may still be
  // completed, could become a second charge.
  if (state?.in_flight) {
    return new ServiceError(
      'conflict',
      `Payment ${state.in_flight} of this session is waiting for authentication or being processed; ` +
        'complete it, or wait for its outcome, before paying again.',
    );
  }
  return undefined;
}
