import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { href, pageOf, parseRoute } from '../../web/dashboard/route.ts';

describe('the dashboard’s addresses', () => {
  for (const [hash, section, path, query] of [
    ['', '', [], ''],
    ['#', '', [], ''],
    ['#payments', 'payments', [], ''],
    ['#payments/', 'payments', [], ''],
    ['#payments/pay_1', 'payments', ['pay_1'], ''],
    ['#payments?status=failed&from=2026-11-01', 'payments', [], 'status=failed&from=2026-11-01'],
    ['#tenants/usr_1/tenancies/RENT%2F1', 'tenants', ['usr_1', 'tenancies', 'RENT/1'], ''],
    ['#tenants/%E0%A4%A', 'tenants', ['%E0%A4%A'], ''],
    ['payouts/held', 'payouts', ['held'], ''],
  ] as const) {
    it(`reads ${JSON.stringify(hash)}`, () => {
      const route = parseRoute(hash);
      assert.equal(route.section, section);
      assert.deepEqual(route.path, path);
      assert.equal(route.query.toString(), query);
    });
  }

  it('writes an address that reads back the same, leaving empty query values out', () => {
    const written = href('tenants', ['usr_1', 'RENT/1 a'], { q: 'a b', empty: '', none: undefined });
    assert.equal(written, '#tenants/usr_1/RENT%2F1%20a?q=a+b');
    const route = parseRoute(written);
    assert.deepEqual(
      [route.section, route.path, route.query.get('q')],
      ['tenants', ['usr_1', 'RENT/1 a'], 'a b'],
    );
    assert.equal(href('home'), '#home');
  });

  for (const [link, page] of [
    [
      '/api/dashboard/payments/?status=succeeded&from=2026-11-01&to=2026-11-27',
      '#payments?status=succeeded&from=2026-11-01&to=2026-11-27',
    ],
    ['/api/dashboard/tenants/', '#tenants'],
    ['/api/dashboard/payouts/?status=created', '#payouts?status=created'],
    ['/api/dashboard/payouts/held/', '#payouts/held'],
    ['/api/dashboard/events/?status=failed', '#developers/events?status=failed'],
    ['/api/dashboard/unknown/', '/api/dashboard/unknown/'],
    ['/elsewhere', '/elsewhere'],
  ] as const) {
    it(`links the home figure ${link} to ${page}`, () => assert.equal(pageOf(link), page));
  }
});
