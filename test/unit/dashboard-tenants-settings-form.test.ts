import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  feeErrors,
  feeRowsOf,
  feesBody,
  originsError,
  originsOf,
  reminderBody,
} from '../../web/dashboard/settings/settings-form.ts';

describe('the settings forms and the API’s fields', () => {
  it('fees: each method a row (empty without a fee); sent back without empty rows, a missing part as 0', () => {
    const rows = feeRowsOf({ card: { percent: '1.40', fixed: '0.20' } });
    assert.deepEqual(rows.card, { percent: '1.40', fixed: '0.20' });
    assert.deepEqual(rows.alipay, { percent: '', fixed: '' });
    assert.equal(Object.keys(rows).length, 6);
    assert.deepEqual(
      feesBody({
        ...rows,
        apple_pay: { percent: ' 2 ', fixed: '' },
        alipay: { percent: '', fixed: '0.50' },
      }),
      {
        card: { percent: '1.40', fixed: '0.20' },
        apple_pay: { percent: '2', fixed: '0' },
        alipay: { percent: '0', fixed: '0.50' },
      },
    );
  });

  for (const [typed, sent] of [
    ['', null],
    ['  ', null],
    ['7', 7],
    [' 30 ', 30],
    ['seven', 'seven'],
    ['1.5', '1.5'],
  ] as const) {
    it(`reminder days “${typed}” are sent as ${JSON.stringify(sent)}`, () =>
      assert.equal(reminderBody(typed), sent));
  }

  it('origins: one a line, blank lines left out', () => {
    assert.deepEqual(originsOf(' https://a.example \n\n https://b.example:8443\n'), [
      'https://a.example',
      'https://b.example:8443',
    ]);
    assert.deepEqual(originsOf(''), []);
  });

  it('the API’s errors on origins name the line; on fees, each field or the whole', () => {
    assert.equal(
      originsError({ 'allowed_origins.1': ['Wildcards are not allowed.'], reminder_days_before: ['x'] }),
      'Line 2: Wildcards are not allowed.',
    );
    assert.equal(originsError({ allowed_origins: ['Too many.'] }), 'Too many.');
    assert.equal(originsError({ fees: ['No.'] }), undefined);
    assert.deepEqual(
      feeErrors({
        'fees.card.percent': ['Must match pattern.'],
        fees: ['Fees charged to tenants are refused in production.'],
        allowed_origins: ['x'],
      }),
      {
        byField: { 'fees.card.percent': 'Must match pattern.' },
        general: 'Fees charged to tenants are refused in production.',
      },
    );
    assert.deepEqual(feeErrors({}), { byField: {}, general: undefined });
  });
});
