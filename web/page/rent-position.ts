/**
 * What the page says about the tenant's rent, from the ledger the session carries: the headline (owing, paid ahead,
 * or the rent due), the amount to suggest, the choices of amount, and what an amount would pay. Payments pay the
 * oldest due date first (the server's rule, shared), so "£1,200" while owing since August pays August, and the page
 * says so.
 */
import { allocateOldestFirst } from '../../src/shared/rent-allocation.ts';
import { formatPence, money, moneyOf, parseTypedPence } from './money.ts';

export interface UnpaidDue {
  date: string;
  amount: string;
  rent: string;
  installment_number?: number | null;
}

export interface RentLedger {
  as_of?: string;
  arrears: string;
  days_overdue: number;
  unpaid?: UnpaidDue[];
  paid_ahead?: { date: string; rent: string; paid_on: string } | null;
}

export interface RentTerms {
  frequency: string;
  ledger: RentLedger;
}

const MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'UTC' });
const MONTH_YEAR = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const DAY_MONTH = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' });
const DAY_SHORT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

const at = (date: string) => new Date(`${date.slice(0, 10)}T00:00:00Z`);
/** "1 August". */
export const dayMonth = (date: string) => DAY_MONTH.format(at(date));

/** What a due date is called: "August rent" (with the year when it is not this year's), or "installment 2". */
export function dueName(
  due: Pick<UnpaidDue, 'date' | 'installment_number'>,
  asOf: string | undefined,
): string {
  if (due.installment_number) return `installment ${due.installment_number}`;
  const sameYear = asOf === undefined || asOf.slice(0, 4) === due.date.slice(0, 4);
  return `${(sameYear ? MONTH : MONTH_YEAR).format(at(due.date))} rent`;
}

/** Only the month (or "installment 2"), to list several: "August and September rent". */
function shortName(due: UnpaidDue, asOf: string | undefined): string {
  return dueName(due, asOf).replace(/ rent$/, '');
}

function listed(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export interface RentStanding {
  /** Due on or before today and not paid in full, oldest first. */
  overdue: UnpaidDue[];
  /** Due after today and not paid in full. */
  upcoming: UnpaidDue[];
  overduePence: number;
}

export function standing(ledger: RentLedger): RentStanding {
  const asOf = ledger.as_of ?? '';
  const unpaid = ledger.unpaid ?? [];
  const overdue = unpaid.filter((due) => due.date <= asOf);
  return {
    overdue,
    upcoming: unpaid.filter((due) => due.date > asOf),
    overduePence: overdue.reduce((sum, due) => sum + (parseTypedPence(due.amount) ?? 0), 0),
  };
}

export interface Headline {
  /** The sentence in bold: what the tenant owes, or what is paid. */
  title: string;
  /** What follows it: since when, or what comes next. */
  detail: string;
}

/**
 * The page's first words about the money. Owing (a due date before today unpaid): "You owe £4,800.00" and "4 months
 * overdue, oldest 1 August". Paid ahead: "December rent is paid (27 Nov)" and "Next rent £950.00 on 1 January". Else
 * the rent due: "December rent £950.00" and "due 1 December" (or "due today"). Null without a ledger to tell.
 */
export function headline({ frequency, ledger }: RentTerms): Headline | null {
  if (!ledger.unpaid || !ledger.as_of) return null;
  const asOf = ledger.as_of;
  const { overdue, upcoming, overduePence } = standing(ledger);
  const late = overdue.filter((due) => due.date < asOf);
  const oldest = overdue[0];
  if (late.length > 0 && oldest) {
    const unit = oldest.installment_number
      ? 'installment'
      : frequency === 'every_1_month'
        ? 'month'
        : 'payment';
    const count = `${late.length} ${unit}${late.length === 1 ? '' : 's'}`;
    return {
      title: `You owe ${money(overduePence)}`,
      detail: `${count} overdue, oldest ${dayMonth(oldest.date)}`,
    };
  }
  if (oldest) {
    return { title: `${capital(dueName(oldest, asOf))} ${moneyOf(oldest.amount)}`, detail: 'due today' };
  }
  const next = upcoming[0];
  const ahead = ledger.paid_ahead;
  if (ahead) {
    return {
      title: `${capital(dueName({ date: ahead.date }, asOf))} is paid (${DAY_SHORT.format(at(ahead.paid_on))})`,
      detail: next ? `Next rent ${moneyOf(next.amount)} on ${dayMonth(next.date)}` : 'No more rent is due.',
    };
  }
  if (next) {
    const part = next.amount !== next.rent ? ` (of ${moneyOf(next.rent)})` : '';
    return {
      title: `${capital(dueName(next, asOf))} ${moneyOf(next.amount)}${part}`,
      detail: `due ${dayMonth(next.date)}`,
    };
  }
  return { title: 'Your rent is paid', detail: 'No more rent is due.' };
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The amount to suggest when the platform set none: what is overdue; else the next rent's part still to pay; and
 * nothing when that is paid already (paying early is the tenant's choice, not the default).
 */
export function suggestedAmount(ledger: RentLedger): string {
  if (!ledger.unpaid) return '';
  const { overdue, overduePence } = standing(ledger);
  if (overdue.length > 0) return formatPence(overduePence);
  if (ledger.paid_ahead) return '';
  return ledger.unpaid[0]?.amount ?? '';
}

export interface AmountChoice {
  label: string;
  amount: string;
}

/**
 * The amounts an editable session offers at a tap: "Overdue" and "Overdue and December" when owing; the next rent
 * (or "January rent, early" when paid ahead) otherwise.
 */
export function amountChoices(ledger: RentLedger): AmountChoice[] {
  if (!ledger.unpaid) return [];
  const asOf = ledger.as_of;
  const { overdue, upcoming, overduePence } = standing(ledger);
  const next = upcoming[0];
  if (overdue.length > 0) {
    const one = overdue.length === 1 ? overdue[0] : undefined;
    const choices = [
      { label: one ? capital(dueName(one, asOf)) : 'Overdue', amount: formatPence(overduePence) },
    ];
    if (next) {
      choices.push({
        label: `${one ? capital(shortName(one, asOf)) : 'Overdue'} and ${shortName(next, asOf)}`,
        amount: formatPence(overduePence + (parseTypedPence(next.amount) ?? 0)),
      });
    }
    return choices;
  }
  if (!next) return [];
  return [
    { label: `${capital(dueName(next, asOf))}${ledger.paid_ahead ? ', early' : ''}`, amount: next.amount },
  ];
}

/**
 * What paying `pence` now would pay: "Pays August and September rent", "Pays August rent and £200.00 towards
 * September", "Pays £200.00 towards August rent"; what is left beyond the due dates listed is "towards later rent".
 */
export function paysWhat(ledger: RentLedger, pence: number | undefined): string {
  if (!ledger.unpaid || pence === undefined || pence <= 0) return '';
  const asOf = ledger.as_of;
  const dues = ledger.unpaid.map((due) => ({ ...due, amount_pence: parseTypedPence(due.amount) ?? 0 }));
  const { parts, left_pence } = allocateOldestFirst(dues, pence);
  const byDate = new Map(dues.map((due) => [due.date, due]));
  const settled = parts.filter((part) => part.settles).map((part) => byDate.get(part.date)!);
  const partial = parts.find((part) => !part.settles);
  const pieces: string[] = [];
  if (settled.length > 0) {
    const names = settled.map((due) => shortName(due, asOf));
    pieces.push(settled[0]!.installment_number ? listed(names) : `${listed(names)} rent`);
  }
  if (partial) {
    const due = byDate.get(partial.date)!;
    pieces.push(`${money(partial.pence)} towards ${dueName(due, asOf)}`);
  }
  if (left_pence > 0) pieces.push(`${money(left_pence)} towards later rent`);
  return pieces.length === 0 ? '' : `Pays ${listed(pieces)}`;
}
