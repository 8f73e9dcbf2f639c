import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ageOf } from '../../web/dashboard/format.ts';
import { actorName, originsOf, percentOf, sortCodeOf } from '../../web/dashboard/operator/format.ts';

describe('the operator console’s words', () => {
  for (const [rate, shown] of [
    [null, '—'],
    [0, '0 %'],
    [0.025, '2.5 %'],
    [0.3333, '33.3 %'],
    [0.99999, '100 %'],
    [1, '100 %'],
  ] as const) {
    it(`a failure rate of ${rate} reads ${shown}`, () => assert.equal(percentOf(rate), shown));
  }

  for (const [seconds, shown] of [
    [null, '—'],
    [0, '0 s'],
    [0.4, '0 s'],
    [45, '45 s'],
    [90, '1 min 30 s'],
    [120, '2 min'],
    [3_620, '1 h'],
    [7_500, '2 h 5 min'],
    [59, '59 s'],
    [60, '1 min'],
    [3_599, '59 min 59 s'],
    [3_600, '1 h'],
    [3_660, '1 h 1 min'],
    [86_400, '1 d'],
    [90_000, '1 d 1 h'],
    [273_600, '3 d 4 h'],
    [273_659, '3 d 4 h'],
    [-5, '0 s'],
  ] as const) {
    it(`${seconds} seconds read ${shown}`, () => assert.equal(ageOf(seconds), shown));
  }

  for (const [digits, shown] of [
    ['123456', '12-34-56'],
    ['12345', '12345'],
    ['12-34-56', '12-34-56'],
  ] as const) {
    it(`the sort code ${digits} reads ${shown}`, () => assert.equal(sortCodeOf(digits), shown));
  }

  for (const [actor, shown] of [
    [null, 'not recorded'],
    [{ type: 'dashboard_user', email: 'ops@rentpay.example', role: 'operator_admin' }, 'ops@rentpay.example'],
    [{ type: 'operator_token' }, 'the operator token'],
    [{ type: 'operator_token', via: 'cli' }, 'the operator token (command line)'],
    [{ type: 'cli', os_user: 'deploy' }, 'the command line (deploy)'],
    [{ type: 'cli' }, 'the command line'],
    [{ type: 'system' }, 'rentpay'],
    [{ type: 'server_token' }, 'server token'],
  ] as const) {
    it(`a run made by ${JSON.stringify(actor)} names ${shown}`, () => assert.equal(actorName(actor), shown));
  }

  it('reads origins separated by spaces, commas or new lines', () => {
    assert.deepEqual(originsOf(' https://a.example, https://b.example\nhttps://c.example  '), [
      'https://a.example',
      'https://b.example',
      'https://c.example',
    ]);
    assert.deepEqual(originsOf('  '), []);
  });
});
