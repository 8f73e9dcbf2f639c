import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  exportHref,
  filtersOf,
  formOf,
  paidWith,
  type SearchForm,
  searchErrors,
} from '../../web/dashboard/payments/search-query.ts';

const form = (fields: Partial<SearchForm>): SearchForm => ({ ...formOf(new URLSearchParams()), ...fields });

describe('the payment search’s filters', () => {
  it('fills the form from the address, leaving out what is not a filter', () => {
    const read = formOf(new URLSearchParams('status=failed&from=2026-11-01&colour=red&limit=5'));
    assert.deepEqual(read, form({ status: 'failed', from: '2026-11-01' }));
  });

  for (const [fields, filters] of [
    [{}, {}],
    [{ email: '  Ada@ ' }, { email: 'Ada@' }],
    [{ amount: '£1,200' }, { amount: '1200.00' }],
    [{ amount: '17.4' }, { amount: '17.40' }],
    [
      { last4: '4242', status: 'succeeded', method: '' },
      { last4: '4242', status: 'succeeded' },
    ],
    [
      { payment_reference: 'RENT 1', to: '2026-11-30' },
      { payment_reference: 'RENT 1', to: '2026-11-30' },
    ],
  ] as const) {
    it(`asks the API for ${JSON.stringify(filters)} from ${JSON.stringify(fields)}`, () => {
      assert.deepEqual(filtersOf(form(fields)), filters);
    });
  }

  for (const [fields, errors] of [
    [{}, []],
    [{ last4: '42' }, ['last4']],
    [{ last4: 'abcd' }, ['last4']],
    [{ amount: '12.345' }, ['amount']],
    [{ amount: '1,20' }, ['amount']],
    [{ from: '2026-02-30' }, ['from']],
    [{ from: '1/11/2026', to: '2026-13-01' }, ['from', 'to']],
    [{ from: '2026-11-02', to: '2026-11-01' }, ['to']],
    [{ from: '2026-11-01', to: '2026-11-01' }, []],
  ] as const) {
    it(`finds ${errors.length ? errors.join(' and ') : 'nothing'} wrong in ${JSON.stringify(fields)}`, () => {
      assert.deepEqual(Object.keys(searchErrors(form(fields))), errors);
    });
  }

  it('exports the same filters, in the form’s order, and nothing else', () => {
    assert.equal(exportHref({}), '/api/dashboard/payments/export.csv');
    assert.equal(
      exportHref({ to: '2026-11-30', status: 'failed', email: 'a+b@x' }),
      '/api/dashboard/payments/export.csv?email=a%2Bb%40x&status=failed&to=2026-11-30',
    );
  });

  for (const [payment, words] of [
    [{ method: 'card', card: { brand: 'visa', last4: '4242' } }, 'Visa •••• 4242'],
    [{ method: 'card', card: null }, 'Card'],
    [
      { method: 'apple_pay', card: { brand: 'mastercard', last4: '4444' } },
      'Apple Pay (Mastercard •••• 4444)',
    ],
    [{ method: 'alipay', card: null }, 'Alipay'],
  ] as const) {
    it(`reads a ${payment.method} payment as “${words}”`, () => {
      assert.equal(paidWith(payment), words);
    });
  }
});
