import type { PaymentMethod } from './api.ts';
import { METHOD_LABELS, WALLETS } from './methods.ts';
import { money } from './money.ts';

/**
 * Each method the tenant can pay with, as one radio group: the wallets first, as express buttons in their brands'
 * colours, then "or pay another way" and the other methods in a two-column list, each with its mark. Once any
 * method has a fee, each option shows its own ("+£17.40", "no fee"), read as the option's description.
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
  const express = methods.filter((option) => WALLETS.includes(option));
  const others = methods.filter((option) => !WALLETS.includes(option));
  const option = (value: PaymentMethod) => (
    <label key={value} class={`method ${value}${value === method ? ' selected' : ''}`}>
      <input
        type="radio"
        name="method"
        value={value}
        // The option's name is the method; its fee is read as its description.
        aria-label={METHOD_LABELS[value]}
        aria-describedby={showFees ? `fee-${value}` : undefined}
        checked={value === method}
        onChange={() => props.onChoose(value)}
      />
      {WALLETS.includes(value) ? null : <span class="mark" aria-hidden="true" />}
      <span>
        <span class="method-name">{METHOD_LABELS[value]}</span>
        {showFees ? (
          <span class="method-fee" id={`fee-${value}`}>
            {feeOf(value) === 0 ? 'no fee' : `+${money(feeOf(value))}`}
          </span>
        ) : null}
      </span>
    </label>
  );
  return (
    <fieldset class="methods">
      <legend>Payment method</legend>
      {express.length > 0 ? <div class="express">{express.map(option)}</div> : null}
      {express.length > 0 && others.length > 0 ? <p class="or">or pay another way</p> : null}
      <div class="method-list">{others.map(option)}</div>
    </fieldset>
  );
}
