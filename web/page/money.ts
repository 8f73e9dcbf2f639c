/** Money on the page: the server's rules (src/shared/money.ts), plus the API's fee shape. */

import { money } from '../../src/shared/display.ts';
import { feeOf, parsePence, parsePercentBps, parseTypedPence } from '../../src/shared/money.ts';

export { longDate, money } from '../../src/shared/display.ts';
export { formatPence, parseTypedPence } from '../../src/shared/money.ts';

/** An amount from the API ("1217.40") as the tenant reads it ("£1,217.40"). */
export function moneyOf(decimal: string): string {
  const pence = parseTypedPence(decimal);
  return pence === undefined ? `£${decimal}` : money(pence);
}

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
