import { csvLine } from '../shared/csv.ts';
import { formatPence } from '../shared/money.ts';

/**
 * The landlord's bank account as a payout needs it. Onboarding accepts up to 50 characters for the sort code and
 * account number; a payout needs a UK account: a 6-digit sort code (dashes or spaces allowed) and a 6- to 8-digit
 * account number. Anything else is kept but not payable, with the reason.
 */

export interface PayoutAccount {
  /** 6 digits. */
  sort_code: string;
  /** 8 digits: a 6- or 7-digit account number with leading zeros, as bulk payment files take it. */
  account_number: string;
}

export type PayoutReadiness = { ready: true; account: PayoutAccount } | { ready: false; reason: string };

export function payoutReadiness(
  sortCode: string,
  accountNumber: string,
  accountName: string,
): PayoutReadiness {
  const sort = sortCode.trim();
  const account = accountNumber.trim().replace(/[\s-]/g, '');
  const reasons: string[] = [];
  if (!/^\d{2}([-\s]?)\d{2}\1\d{2}$/.test(sort)) {
    reasons.push('recipient_bank_sort_code is not a UK sort code (6 digits, e.g. 12-34-56)');
  }
  if (!/^\d{6,8}$/.test(account)) {
    reasons.push('recipient_bank_account_number is not a UK account number (6 to 8 digits)');
  }
  if (accountName.trim() === '') reasons.push('recipient_bank_account_name is blank');
  else if (bankAccountName(accountName) === '') {
    reasons.push(
      'recipient_bank_account_name has no letter or digit a bank file takes (A-Z, 0-9): give the name as the bank holds it',
    );
  }
  if (reasons.length > 0) return { ready: false, reason: `${reasons.join('; ')}.` };
  return {
    ready: true,
    account: { sort_code: sort.replace(/\D/g, ''), account_number: account.padStart(8, '0') },
  };
}

/** Text in the bank's character set: upper-case letters, digits, space and . - / &; anything else becomes a space. */
function bankCharacters(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^A-Z0-9 .\-/&]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A bulk payment reference: the bank's character set, at most 18 characters. */
export function bankReference(paymentReference: string): string {
  const cleaned = bankCharacters(paymentReference).slice(0, 18).trim();
  return cleaned === '' ? 'RENT' : cleaned;
}

/**
 * The landlord's account name as the bank file carries it: the bank's character set, so no name can break a line,
 * add a cell or hold a formula, whatever delimiter the bank's software reads the file with.
 */
export function bankAccountName(accountName: string): string {
  // Starting with a letter or digit: no cell can begin like a formula (- . / &), whatever reads the file.
  return bankCharacters(accountName).replace(/^[^A-Z0-9]+/, '');
}

export const PAYOUT_CSV_HEADER = ['sort_code', 'account_number', 'account_name', 'amount', 'reference'];

/** The bank's bulk-payment file of a run: a header row, then one row per payout; CRLF line ends. */
export function payoutCsv(
  items: readonly {
    sort_code: string;
    account_number: string;
    account_name: string;
    amount: string;
    reference: string;
  }[],
): string {
  const rows = [
    PAYOUT_CSV_HEADER,
    ...items.map((item) => [
      item.sort_code,
      item.account_number,
      bankAccountName(item.account_name),
      item.amount,
      item.reference,
    ]),
  ];
  return rows.map(csvLine).join('');
}

/** A run's bank file from its payouts, as the Operator API and the operator console download it. */
export function runBankFile(
  payouts: readonly {
    sort_code: string;
    account_number: string;
    account_name: string;
    amount_pence: number;
    reference: string;
  }[],
): string {
  return payoutCsv(
    payouts.map((payout) => ({
      sort_code: payout.sort_code,
      account_number: payout.account_number,
      account_name: payout.account_name,
      amount: formatPence(Number(payout.amount_pence)),
      reference: payout.reference,
    })),
  );
}
