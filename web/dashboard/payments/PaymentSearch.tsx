import { createRef, type RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { moneyOf } from '../../../src/shared/display.ts';
import { Pager, useCursorPages } from '../paging.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Alert, Field, Select, TableWrap, useFocusOnMount, When } from '../ui.tsx';
import {
  exportHref,
  filtersOf,
  formOf,
  METHOD_OPTIONS,
  paidWith,
  SEARCH_FILTERS,
  type SearchFilter,
  type SearchForm,
  STATUS_NAMES,
  STATUS_OPTIONS,
  searchErrors,
} from './search-query.ts';
import type { DashboardPayment } from './types.ts';

let lastSearch = href('payments');

/** The address of the search last shown, so a payment's page leads back to the same list. */
export function lastSearchAddress(): string {
  return lastSearch;
}

/** The payment search: filters in the address, the results a page at a time, and their CSV export. */
export function PaymentSearch(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const queryText = props.route.query.toString();
  const filters = filtersOf(formOf(props.route.query));
  const [form, setForm] = useState<SearchForm>(() => formOf(props.route.query));
  const [errors, setErrors] = useState<Partial<Record<SearchFilter, string>>>({});
  const inputs = useRef(
    Object.fromEntries(SEARCH_FILTERS.map((name) => [name, createRef<HTMLInputElement>()])) as Record<
      SearchFilter,
      RefObject<HTMLInputElement>
    >,
  ).current;
  const pages = useCursorPages<DashboardPayment>('/payments/', filters, (payment) => payment.payment_id);
  const { page, problem, loading, captionRef } = pages;

  // Back and forward, or a link to another search, change the address: the form follows it.
  useEffect(() => {
    setForm(formOf(props.route.query));
    setErrors({});
    lastSearch = href('payments', [], props.route.query);
  }, [queryText]);

  const set = (name: SearchFilter) => (value: string) => setForm({ ...form, [name]: value });

  const search = (event: Event) => {
    event.preventDefault();
    const found = searchErrors(form);
    setErrors(found);
    const first = Object.keys(found)[0] as SearchFilter | undefined;
    if (first) {
      inputs[first].current?.focus();
      return;
    }
    location.hash = href('payments', [], filtersOf(form));
  };

  const field = (name: SearchFilter, label: string, extra: Partial<Parameters<typeof Field>[0]> = {}) => (
    <Field
      id={`search-${name}`}
      label={label}
      value={form[name]}
      onValue={set(name)}
      error={errors[name]}
      inputRef={inputs[name]}
      {...extra}
    />
  );

  const choice = (name: 'status' | 'method', label: string, options: typeof STATUS_OPTIONS) => (
    <Select id={`search-${name}`} label={label} value={form[name]} options={options} onValue={set(name)} />
  );

  const filtered = Object.keys(filters).length > 0;

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Payments
      </h1>
      <form class="card search-form" aria-label="Search payments" onSubmit={search} noValidate>
        <div class="search-fields">
          {field('email', 'Tenant’s email', {
            hint: 'Or its beginning.',
            autocomplete: 'off',
            inputMode: 'email',
            spellcheck: false,
          })}
          {field('payment_reference', 'Payment reference', { autocomplete: 'off', spellcheck: false })}
          {field('last4', 'Card’s last 4 digits', {
            inputMode: 'numeric',
            maxLength: 4,
            autocomplete: 'off',
          })}
          {field('amount', 'Amount', { hint: 'Charged, or its rent.', autocomplete: 'off' })}
          {choice('status', 'Status', STATUS_OPTIONS)}
          {choice('method', 'Method', METHOD_OPTIONS)}
          {field('from', 'Made from', { type: 'date', hint: 'A UK day.', autocomplete: 'off' })}
          {field('to', 'Made to', { type: 'date', hint: 'Included.', autocomplete: 'off' })}
        </div>
        <div class="buttons">
          <button type="submit" class="primary">
            Search
          </button>
          {filtered ? <a href={href('payments')}>Clear the filters</a> : null}
        </div>
      </form>
      {problem ? <Alert focus>{problem}</Alert> : null}
      <div class="results-head">
        <p class="hint">
          {filtered ? 'Payments matching every filter, newest first.' : 'Every payment, newest first.'}
        </p>
        <a class="download" href={exportHref(filters)} download>
          Download CSV<span class="visually-hidden"> of {filtered ? 'these payments' : 'every payment'}</span>
        </a>
      </div>
      {!page ? (
        problem ? null : (
          <p role="status">Loading…</p>
        )
      ) : page.data.length === 0 ? (
        <p role="status">No payments {filtered ? 'match these filters' : 'yet'}.</p>
      ) : (
        <TableWrap label="Payments found">
          <table aria-busy={loading}>
            <caption ref={captionRef} tabIndex={-1}>
              Payments found, page {page.index + 1}
            </caption>
            <thead>
              <tr>
                <th scope="col">Payment</th>
                <th scope="col">Made</th>
                <th scope="col">Tenant</th>
                <th scope="col">Payment reference</th>
                <th scope="col" class="number">
                  Amount
                </th>
                <th scope="col">Status</th>
                <th scope="col">Paid with</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((payment) => (
                <tr key={payment.payment_id}>
                  <th scope="row">
                    <a class="mono" href={href('payments', [payment.payment_id])}>
                      {payment.payment_id}
                    </a>
                  </th>
                  <td>
                    <When at={payment.created_at} />
                  </td>
                  <td class="break">
                    {payment.name}
                    <span class="hint block">{payment.email}</span>
                  </td>
                  <td class="break">{payment.payment_reference}</td>
                  <td class="number">
                    {moneyOf(payment.amount)}
                    {payment.refunded !== '0.00' ? (
                      <span class="hint block">{moneyOf(payment.refunded)} refunded</span>
                    ) : null}
                  </td>
                  <td>
                    <span class={`payment-status status-${payment.status}`}>
                      {STATUS_NAMES[payment.status]}
                    </span>
                  </td>
                  <td class="nowrap">{paidWith(payment)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager pages={pages} label="Pages of payments" />
    </>
  );
}
