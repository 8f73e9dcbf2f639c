import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, tokeniseCard } from './api.ts';
import {
  BRAND_NAMES,
  type CardErrors,
  type CardFields,
  cardBrand,
  cardErrors,
  digitsOf,
  formatCardNumber,
  formatExpiry,
  parseExpiry,
} from './card.ts';

export interface CardFormHandle {
  /** Checks every field, shows what is wrong and moves focus to the first problem. */
  validate(): boolean;
  /** Sends the card to the processor; undefined when the processor refused a field (shown inline). */
  tokenise(url: string): Promise<{ token: string; save: boolean } | undefined>;
  clear(): void;
}

const BRAND_MARKS: Record<string, string> = {
  visa: 'VISA',
  mastercard: 'mastercard',
  amex: 'AMEX',
  unionpay: 'UnionPay',
};
const EMPTY: CardFields = { number: '', expiry: '', cvc: '' };
const FIELD_OF_PROCESSOR: Record<string, keyof CardFields> = {
  number: 'number',
  exp_month: 'expiry',
  exp_year: 'expiry',
  cvc: 'cvc',
};

export function CardForm({
  handleRef,
  allowSave,
}: {
  handleRef: RefObject<CardFormHandle | null>;
  allowSave: boolean;
}) {
  const [fields, setFields] = useState<CardFields>(EMPTY);
  const [errors, setErrors] = useState<CardErrors>({});
  const [save, setSave] = useState(false);
  const brand = cardBrand(digitsOf(fields.number));

  const focusFirst = (found: CardErrors) => {
    const first = (['number', 'expiry', 'cvc'] as const).find((key) => found[key]);
    if (first) document.getElementById(`card-${first}`)?.focus();
  };

  const handle: CardFormHandle = {
    validate() {
      const found = cardErrors(fields, new Date());
      setErrors(found);
      focusFirst(found);
      return Object.keys(found).length === 0;
    },
    async tokenise(url) {
      const expiry = parseExpiry(fields.expiry);
      try {
        const token = await tokeniseCard(url, {
          number: digitsOf(fields.number),
          exp_month: expiry?.month ?? 0,
          exp_year: expiry?.year ?? 0,
          cvc: fields.cvc.trim(),
        });
        return { token, save };
      } catch (error) {
        if (!(error instanceof ApiProblem) || Object.keys(error.fields).length === 0) throw error;
        const found: CardErrors = {};
        for (const [key, message] of Object.entries(error.fields)) {
          const field = FIELD_OF_PROCESSOR[key];
          if (field) found[field] = message;
        }
        if (Object.keys(found).length === 0) throw error;
        setErrors(found);
        focusFirst(found);
        return undefined;
      }
    },
    clear() {
      setFields(EMPTY);
      setErrors({});
    },
  };
  handleRef.current = handle;
  const latest = useRef(handle);
  latest.current = handle;
  // Unmounted (a saved card chosen, another method, the Recurring rent view): no stale handle on hidden fields.
  useEffect(
    () => () => {
      if (handleRef.current === latest.current) handleRef.current = null;
    },
    [handleRef],
  );

  const checkOne = (key: keyof CardFields) => {
    if (fields[key] === '') return;
    const message = cardErrors(fields, new Date())[key];
    setErrors((current) => ({ ...current, [key]: message }));
  };

  const field = (
    key: keyof CardFields,
    label: string,
    input: {
      autoComplete: string;
      placeholder: string;
      format?: (value: string, deleting: boolean) => string;
    },
  ) => (
    <div class={`field field-${key}`}>
      <label for={`card-${key}`}>{label}</label>
      <input
        id={`card-${key}`}
        name={key}
        inputMode="numeric"
        autoComplete={input.autoComplete}
        placeholder={input.placeholder}
        value={fields[key]}
        aria-invalid={errors[key] ? 'true' : undefined}
        aria-describedby={errors[key] ? `card-${key}-error` : undefined}
        onInput={(event) => {
          const target = event.currentTarget;
          const deleting = (event as InputEvent).inputType?.startsWith('delete') ?? false;
          const value = input.format ? input.format(target.value, deleting) : target.value;
          if (value !== target.value) target.value = value;
          setFields((current) => ({ ...current, [key]: value }));
          if (errors[key]) setErrors((current) => ({ ...current, [key]: undefined }));
        }}
        onBlur={() => checkOne(key)}
      />
      {key === 'number' && brand !== 'unknown' ? (
        // The brand's mark where the tenant looks (the legend names it for screen readers).
        <span class={`brand-mark ${brand}`} aria-hidden="true" data-testid="brand-mark">
          {BRAND_MARKS[brand]}
        </span>
      ) : null}
      {errors[key] ? (
        <p id={`card-${key}-error`} class="error">
          {errors[key]}
        </p>
      ) : null}
    </div>
  );

  return (
    <fieldset class="card-form">
      <legend>
        New card{brand !== 'unknown' ? <span class="brand"> · {BRAND_NAMES[brand]}</span> : null}
      </legend>
      {field('number', 'Card number', {
        autoComplete: 'cc-number',
        placeholder: '1234 1234 1234 1234',
        format: (value) => formatCardNumber(value),
      })}
      <div class="row">
        {field('expiry', 'Expiry', { autoComplete: 'cc-exp', placeholder: 'MM / YY', format: formatExpiry })}
        {field('cvc', 'CVC', {
          autoComplete: 'cc-csc',
          placeholder: '123',
          format: (value) => digitsOf(value).slice(0, 4),
        })}
      </div>
      {allowSave ? (
        <label class="check">
          <input type="checkbox" checked={save} onChange={(event) => setSave(event.currentTarget.checked)} />
          Save this card for future payments
        </label>
      ) : null}
    </fieldset>
  );
}
