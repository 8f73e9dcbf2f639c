/**
 * Receipts and rent statements: documents a tenant keeps, built from the payments and ledger domains' records and
 * rendered as PDF when asked (nothing stored: the same records and generation time give the same bytes).
 */
import type { LedgerService } from '../ledger/service.ts';
import type { PaymentService } from '../payments/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db } from '../platform/db/db.ts';
import { ServiceError } from '../platform/errors.ts';
import { utcDate } from '../shared/dates.ts';
import { tenancyParties } from './parties.ts';
import { renderReceipt } from './receipt.ts';
import { type Period, type Statement, statementOf } from './statement.ts';
import { renderStatement } from './statement-pdf.ts';

/** The longest period a statement covers. */
export const MAX_STATEMENT_YEARS = 6;

/** The period a statement asks for, with its defaults: to today, from 12 months before it. */
export function statementPeriod(asked: Partial<Period>, today: string): Period {
  const to = asked.to ?? today;
  const [year, month, day] = to.split('-').map(Number) as [number, number, number];
  const from = asked.from ?? utcDate(new Date(Date.UTC(year - 1, month - 1, day + 1)));
  if (to > today)
    throw new ServiceError('invalid_request', `Invalid querystring: to: ${to} is after today (${today}).`);
  if (from > to)
    throw new ServiceError('invalid_request', `Invalid querystring: from: ${from} is after to (${to}).`);
  const limit = utcDate(new Date(Date.UTC(year - MAX_STATEMENT_YEARS, month - 1, day)));
  if (from < limit) {
    throw new ServiceError(
      'invalid_request',
      `Invalid querystring: from: a statement covers at most ${MAX_STATEMENT_YEARS} years; from ${limit} at the earliest.`,
    );
  }
  return { from, to };
}

export class ReceiptService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly payments: PaymentService,
    private readonly ledger: LedgerService,
  ) {}

  /**
   * The receipt of one of the integrator's payments as a PDF; `tenantUserId` (our user id): only if it is theirs.
   * Undefined: no such payment (of theirs). A payment that has not succeeded has none (conflict).
   */
  async receipt(integratorId: string, paymentId: string, tenantUserId?: string): Promise<Buffer | undefined> {
    const payment = await this.payments.listed(integratorId, paymentId);
    if (!payment || (tenantUserId !== undefined && payment.user_id !== tenantUserId)) return undefined;
    if (payment.status !== 'succeeded') {
      throw new ServiceError(
        'conflict',
        `Payment ${paymentId} is ${payment.status}: only a succeeded payment has a receipt.`,
      );
    }
    const generatedAt = this.clock.now();
    const [parties, refunds, standing] = await Promise.all([
      tenancyParties(this.db, integratorId, { id: payment.tenancy_id }),
      this.payments.refunds.forPayment(paymentId),
      this.ledger.position(payment.tenancy_id, utcDate(generatedAt)),
    ]);
    return renderReceipt({
      payment,
      parties: parties!,
      refunds: refunds.filter((refund) => refund.status === 'succeeded'),
      applied: standing?.position.applied.get(paymentId) ?? [],
      generatedAt,
    });
  }

  /** The statement of one of the integrator's tenancies over a period (see statementPeriod); undefined: none such. */
  async statement(
    integratorId: string,
    paymentReference: string,
    asked: Partial<Period> = {},
  ): Promise<Statement | undefined> {
    const generatedAt = this.clock.now();
    const period = statementPeriod(asked, utcDate(generatedAt));
    const parties = await tenancyParties(this.db, integratorId, { payment_reference: paymentReference });
    if (!parties) return undefined;
    const standing = await this.ledger.position(parties.tenancy_id, period.to);
    return standing && statementOf(parties, period, standing, generatedAt);
  }

  /** A statement as a PDF. */
  statementPdf(statement: Statement): Promise<Buffer> {
    return renderStatement(statement);
  }
}
