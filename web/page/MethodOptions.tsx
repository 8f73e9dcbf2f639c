import type { PaymentMethod } from './api.ts';
import { METHOD_LABELS } from './methods.ts';
import { money } from './money.ts';

/**
 * Each method the tenant can pay with, as a radio; a wallet carries its brand's mark. Once any method has a fee,
 * each option shows its own ("+£17.40", "no fee"), read as the option's description.
 */
export function MethodOptions(props: {
  methods: PaymentMethod[];
  method: PaymentMethod;
  /** Each option's fee in pence; undefined while the amount is not one. */
  feeOf: ((method: PaymentMethod) => number) | undefined;
  onChoose(method: PaymentMethod): void;
}) {
  const { methods, method, feeOf } = props;
  const showFees = feeOf !== undefined && methods.some((option) => feeOf(option) > 0);
  return (
    <fieldset class="methods">
      <legend>Payment method</legend>
      {methods.map((option) => (
        <label key={option} class={option === method ? 'method selected' : 'method'}>
          <input
            type="radio"
            name="method"
            value={option}
            // The option's name is the method; its fee is read as its description.
            aria-label={METHOD_LABELS[option]}
            aria-describedby={showFees ? `fee-${option}` : undefined}
            checked={option === method}
            onChange={() => props.onChoose(option)}
          />
          <span class={`method-name mark-${option}`}>{METHOD_LABELS[option]}</span>
          {showFees ? (
            <span class="method-fee" id={`fee-${option}`}>
              {feeOf(option) === 0 ? 'no fee' : `+${money(feeOf(option))}`}
            </span>
          ) : null}
        </label>
      ))}
    </fieldset>
  );
}
