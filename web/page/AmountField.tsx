import type { Session } from './api.ts';
import { money, moneyOf, parseTypedPence } from './money.ts';
import { amountChoices, paysWhat } from './rent-position.ts';
import type { PageAction } from './state.ts';

/**
 * The amount: read-only when the platform fixed it, else a field with the amounts that settle what is owed at a tap
 * ("Overdue £4,800.00", "Overdue and December £6,000.00", "Other amount"). Either way it says what the amount pays,
 * oldest due date first ("Pays August and September rent"), so nobody believes the newest month paid.
 */
export function AmountField(props: {
  session: Session;
  amount: string;
  purePence: number | undefined;
  editable: boolean;
  error: string | undefined;
  dispatch(action: PageAction): void;
  amountProblem(): string | undefined;
}) {
  const { session, amount, purePence, editable, error, dispatch } = props;
  const ledger = session.tenancy.ledger;
  const pays = paysWhat(ledger, purePence);
  const paysNote = pays ? (
    <p id="amount-pays" class="hint amount-pays" data-testid="amount-pays" aria-live="polite">
      {pays}
    </p>
  ) : null;

  if (!editable) {
    return (
      <div class="field">
        <p class="fixed-amount" data-testid="fixed-amount">
          <span class="label">Amount</span>{' '}
          <strong>{purePence === undefined ? '—' : money(purePence)}</strong>
          {session.amount.editable ? null : <span class="hint"> set by your platform</span>}
        </p>
        {paysNote}
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    );
  }

  const choices = amountChoices(ledger);
  const chosen = choices.find((choice) => parseTypedPence(choice.amount) === purePence);
  const describedBy = [pays ? 'amount-pays' : '', error ? 'amount-error' : ''].filter(Boolean).join(' ');
  const choose = (value: string) => {
    dispatch({ type: 'amount', value });
    dispatch({ type: 'amountChecked', error: undefined });
  };
  return (
    <div class="field">
      {choices.length > 0 ? (
        <fieldset class="amount-choices">
          <legend>How much to pay</legend>
          {choices.map((choice) => (
            <label key={choice.label} class={chosen === choice ? 'choice selected' : 'choice'}>
              <input
                type="radio"
                name="amount-choice"
                checked={chosen === choice}
                onChange={() => choose(choice.amount)}
              />
              <span>{choice.label}</span>
              <strong>{moneyOf(choice.amount)}</strong>
            </label>
          ))}
          <label class={chosen ? 'choice' : 'choice selected'}>
            <input
              type="radio"
              name="amount-choice"
              checked={!chosen}
              onChange={() => {
                choose('');
                document.getElementById('amount')?.focus();
              }}
            />
            <span>Other amount</span>
          </label>
        </fieldset>
      ) : null}
      <label for="amount">Amount (£)</label>
      <input
        id="amount"
        name="amount"
        inputMode="decimal"
        autoComplete="off"
        value={amount}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
        onInput={(event) => dispatch({ type: 'amount', value: event.currentTarget.value })}
        onBlur={() => dispatch({ type: 'amountChecked', error: props.amountProblem() })}
      />
      {paysNote}
      {error ? (
        <p id="amount-error" class="error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
