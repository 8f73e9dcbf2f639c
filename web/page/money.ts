/** Money on the page: the server's rules (src/shared/money.ts), plus the API's fee shape. */

import { feeOf, parsePence, parsePercentBps } from '../../src/shared/money.ts';

export { longDate, money, moneyOf, paidWith, rentMonth, ukDateTime } from '../../src/shared/display.ts';
export { formatPence, parseTypedPence } from '../../src/shared/money.ts';

/** A method's fee as the Client API sends it: a percent and a fixed part, both decimal strings. */
export interface Fee {
  percent: string;
  fixed: string;
}

/** The fee the server will charge on this amount with this method's fee. */
export function feePence(purePence: number, fee: Fee | undefined): number {
  if (!fee) return 0;
  return feeOf(purePence, {
    percentBps: parsePercentBps(fee.percent) ?? 0,
    fixedPence: parsePence(fee.fixed) ?? 0,
  });
}
