import type { Session } from './api.ts';
import { longDate, moneyOf } from './money.ts';

const SHORT_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/**
 * What the tenant owes, from the tenancy's rent ledger, beside the amount they choose: `short`'s parts fit the
 * amount's label row ("£3,600.00 in arrears", "£1,200.00 due 1 Apr"), `full` says it all ("… (59 days overdue) · £1,200.00
 * due on 1 April 2026"). Rent due today and unpaid is "due today", not arrears. Null when nothing is owed or due.
 */
export function rentOwed(ledger: Session['tenancy']['ledger']): { short: string[]; full: string } | null {
  const short: string[] = [];
  const full: string[] = [];
  if (ledger.arrears !== '0.00') {
    const arrears = moneyOf(ledger.arrears);
    const days = ledger.days_overdue;
    if (days > 0) {
      short.push(`${arrears} in arrears`);
      full.push(`${arrears} in arrears (${days} day${days === 1 ? '' : 's'} overdue)`);
    } else {
      short.push(`${arrears} due today`);
      full.push(`${arrears} due today`);
    }
  }
  if (ledger.next_due) {
    const amount = moneyOf(ledger.next_due.amount);
    short.push(`${amount} due ${SHORT_DATE.format(new Date(`${ledger.next_due.date}T00:00:00Z`))}`);
    full.push(`${amount} due on ${longDate(ledger.next_due.date)}`);
  }
  return short.length === 0 ? null : { short, full: full.join(' · ') };
}
