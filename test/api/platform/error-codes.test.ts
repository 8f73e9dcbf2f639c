/** The error codes are a closed set: the API reference, the answers and docs/errors.md all name the same codes. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES } from '../../../src/platform/errors.ts';
import { ERROR_STATUS } from '../../../src/platform/http/errors.ts';
import { startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';

describe('error codes', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('docs/errors.md lists every code with the status it answers, and no other code', () => {
    const rows = [
      ...fs
        .readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
        .matchAll(/^\| `([a-z_]+)` +\| (\d{3}) /gm),
    ].map((match) => [match[1]!, Number(match[2])] as const);
    assert.deepEqual([...new Set(rows.map(([code]) => code))].sort(), [...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      assert.ok(
        rows.some(([listed, status]) => listed === code && status === ERROR_STATUS[code]),
        `${code} is documented with ${ERROR_STATUS[code]}`,
      );
    }
  });

  it('the API reference types the error field as the closed set', async () => {
    const document = (await t.app.inject('/api/third-party/openapi.json')).json();
    const schemas = Object.values(document.components.schemas) as {
      title?: string;
      properties?: Record<string, { enum?: string[] }>;
    }[];
    const error = schemas.find((schema) => schema.title === 'Error');
    assert.deepEqual(error?.properties?.error?.enum, [...ERROR_CODES]);
  });

  it('answers carry a code of the set with its status', async () => {
    const { token } = await t.createIntegrator();
    const answers = [
      await t.app.inject({ method: 'GET', url: '/api/third-party/integrator/' }),
      await t.app.inject({
        method: 'GET',
        url: '/api/third-party/sessions/ses_unknown/',
        headers: tokenHeader(token),
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/third-party/user-login/',
        headers: tokenHeader(token),
        payload: 'x',
      }),
    ];
    assert.deepEqual(
      answers.map((answer) => [answer.statusCode, answer.json().error]),
      [
        [401, 'unauthorized'],
        [404, 'not_found'],
        [400, 'unsupported_content_type'],
      ],
    );
  });
});
