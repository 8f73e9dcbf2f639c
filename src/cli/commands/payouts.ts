import type { Command } from 'commander';
import type { PayoutView } from '../../payouts/view.ts';
import { CliError, operatorClient, operatorText, withOperatorOptions } from '../operator-client.ts';
import { jsonOutput, printable, safe, table } from '../output.ts';

interface RunOut {
  payout_run_id: string;
  status: string;
  as_of: string;
  total: string;
  items?: PayoutView[];
  created_at: string;
}

function calendarDate(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new CliError(safe`"${value}" is not a date: write YYYY-MM-DD`);
  return value;
}

function printRun(run: RunOut, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${jsonOutput(run)}\n`);
    return;
  }
  const items = run.items ?? [];
  const lines = [
    safe`${run.payout_run_id}  ${run.status}  as of ${run.as_of}  total £${run.total}  ${items.length} payouts`,
  ];
  if (items.length > 0) {
    lines.push(
      table(
        ['payout_id', 'reference', 'sort code', 'account', 'name', 'amount', 'payments'],
        items.map((p) => [
          p.payout_id,
          p.payment_reference,
          p.sort_code,
          p.account_number,
          p.account_name,
          p.amount,
          String(p.payment_ids.length),
        ]),
      ),
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `rentpay payouts ...`: runs of settled rent to landlords, the bank file, confirmation and the auditor's check. */
export function registerPayoutCommands(program: Command): void {
  const payouts = program.command('payouts').description('Pay settled rent out to landlords, and check it');

  withOperatorOptions(
    payouts
      .command('run')
      .description('Make a payout run: one payout per tenancy with rent to pay out')
      .option(
        '--as-of <date>',
        'count payments and refunds made on or before this day (default today)',
        calendarDate,
      ),
  ).action(async (options) => {
    const run = await operatorClient(options).request<RunOut>(
      'POST',
      '/payouts/runs',
      options.asOf ? { as_of: options.asOf } : {},
    );
    printRun(run, options.json);
  });

  withOperatorOptions(
    payouts
      .command('list [payout_run_id]')
      .description('List payout runs; with an id, that run and its payouts')
      .option('--held', 'instead, the tenancies whose rent runs hold back, and why')
      .option('--as-of <date>', 'with --held: as of this day', calendarDate),
  ).action(async (runId: string | undefined, options) => {
    const client = operatorClient(options);
    if (options.held) {
      const query = options.asOf ? `?as_of=${options.asOf}` : '';
      const { data } = await client.request<{
        data: { integrator_id: string; payment_reference: string; amount: string; reason: string }[];
      }>('GET', `/payouts/held${query}`);
      if (options.json) return void process.stdout.write(`${jsonOutput(data)}\n`);
      process.stdout.write(
        data.length === 0
          ? 'No rent is held back.\n'
          : `${table(
              ['integrator', 'reference', 'amount', 'reason'],
              data.map((h) => [h.integrator_id, h.payment_reference, h.amount, h.reason]),
            )}\n`,
      );
      return;
    }
    if (runId) {
      printRun(
        await client.request<RunOut>('GET', `/payouts/runs/${encodeURIComponent(runId)}`),
        options.json,
      );
      return;
    }
    const { data } = await client.request<{ data: RunOut[] }>('GET', '/payouts/runs');
    if (options.json) return void process.stdout.write(`${jsonOutput(data)}\n`);
    process.stdout.write(
      data.length === 0
        ? 'No payout runs.\n'
        : `${table(
            ['payout_run_id', 'status', 'as of', 'total', 'created'],
            data.map((r) => [r.payout_run_id, r.status, r.as_of, r.total, r.created_at]),
          )}\n`,
    );
  });

  withOperatorOptions(
    payouts
      .command('file <payout_run_id>')
      .description('Print the run’s bulk-payment file (CSV) for the bank'),
  ).action(async (runId: string, options) => {
    const file = await operatorText(options, `/payouts/runs/${encodeURIComponent(runId)}/file?format=csv`);
    // Redirected or piped, the file is the bank's, byte for byte; shown on a terminal, its controls are escaped
    // (its CRLF line ends kept) so an account name cannot hide or rewrite a line of it.
    process.stdout.write(process.stdout.isTTY ? file.split('\r\n').map(printable).join('\r\n') : file);
  });

  for (const action of ['confirm', 'cancel'] as const) {
    withOperatorOptions(
      payouts
        .command(`${action} <payout_run_id>`)
        .description(
          action === 'confirm'
            ? 'Mark a run paid once the bank file was sent (sends payout_paid webhooks)'
            : 'Cancel a run not yet confirmed (its rent is payable again)',
        ),
    ).action(async (runId: string, options) => {
      printRun(
        await operatorClient(options).request<RunOut>(
          'POST',
          `/payouts/runs/${encodeURIComponent(runId)}/${action}`,
        ),
        options.json,
      );
    });
  }

  withOperatorOptions(
    payouts
      .command('approve')
      .description('Approve a landlord account for payouts (production holds new accounts until approved)')
      .requiredOption('--sort-code <sort code>', 'e.g. 12-34-56')
      .requiredOption('--account-number <number>', '6 to 8 digits'),
  ).action(async (options) => {
    const approved = await operatorClient(options).request<{ sort_code: string; account_number: string }>(
      'POST',
      '/payouts/approvals',
      { sort_code: options.sortCode, account_number: options.accountNumber },
    );
    process.stdout.write(
      options.json
        ? `${jsonOutput(approved)}\n`
        : safe`Approved ${approved.sort_code} ${approved.account_number} for payouts.\n`,
    );
  });

  withOperatorOptions(
    payouts
      .command('reconcile')
      .description('Check payouts against payments; prints each mismatch and exits 1 on any'),
  ).action(async (options) => {
    const result = await operatorClient(options).request<{
      ok: boolean;
      mismatches: string[];
      checked: { payments: number; payouts: number; runs: number };
    }>('GET', '/payouts/reconcile');
    if (options.json) process.stdout.write(`${jsonOutput(result)}\n`);
    else {
      for (const mismatch of result.mismatches) process.stdout.write(`${safe`MISMATCH ${mismatch}`}\n`);
      process.stdout.write(
        safe`${result.ok ? 'Reconciled' : `${result.mismatches.length} mismatches`}: ${result.checked.payments} ` +
          safe`succeeded payments, ${result.checked.payouts} payouts, ${result.checked.runs} runs.\n`,
      );
    }
    if (!result.ok) process.exitCode = 1;
  });
}
