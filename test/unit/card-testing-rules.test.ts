/** The card-testing limits as a pure function: which attempt is refused, and for how long. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type DeclineRecord,
  declineBlock,
  isIssuerDecline,
  SESSION_DECLINE_LIMIT,
  USER_DECLINE_LIMIT,
  USER_DECLINE_WINDOW_MS,
} from '../../src/cards/card-testing.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const SESSION = { id: 'ses_this', expires_at: new Date(NOW.getTime() + 20 * 60_000) };
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const declines = (n: number, session: string, firstAgoMs: number, stepMs = 1000): DeclineRecord[] =>
  Array.from({ length: n }, (_, i) => ({ session_id: session, created_at: ago(firstAgoMs - i * stepMs) }));

describe('declineBlock', () => {
  const cases: [string, DeclineRecord[], ReturnType<typeof declineBlock>][] = [
    ['no declines', [], undefined],
    ['one below the session limit', declines(SESSION_DECLINE_LIMIT - 1, 'ses_this', 60_000), undefined],
    [
      'at the session limit: until the session expires',
      declines(SESSION_DECLINE_LIMIT, 'ses_this', 60_000),
      { scope: 'session', retryAfterSeconds: 20 * 60 },
    ],
    [
      'declines of other sessions do not count for this one',
      declines(SESSION_DECLINE_LIMIT, 'ses_other', 60_000),
      undefined,
    ],
    [
      'one below the user limit across sessions',
      [...declines(4, 'ses_this', 60_000), ...declines(USER_DECLINE_LIMIT - 5, 'ses_other', 3_600_000)],
      undefined,
    ],
    [
      'at the user limit: until the oldest decline is 24 h old',
      declines(USER_DECLINE_LIMIT, 'ses_other', 3_600_000),
      { scope: 'user', retryAfterSeconds: (USER_DECLINE_WINDOW_MS - 3_600_000) / 1000 },
    ],
    [
      'over the user limit: until enough have aged out to fall below it',
      declines(USER_DECLINE_LIMIT + 2, 'ses_other', 3_600_000, 60_000),
      // 12 declines a minute apart from 1 h ago: the third oldest (2 min later) must leave the window.
      { scope: 'user', retryAfterSeconds: (USER_DECLINE_WINDOW_MS - 3_600_000 + 2 * 60_000) / 1000 },
    ],
    [
      'declines older than 24 h are forgotten',
      declines(USER_DECLINE_LIMIT, 'ses_other', USER_DECLINE_WINDOW_MS + 60_000),
      undefined,
    ],
    [
      'exactly 24 h old no longer counts',
      [
        ...declines(USER_DECLINE_LIMIT - 1, 'ses_other', 3_600_000),
        { session_id: 'ses_other', created_at: ago(USER_DECLINE_WINDOW_MS) },
      ],
      undefined,
    ],
    [
      'one millisecond short of 24 h old still counts, for at least 1 s',
      [
        ...declines(USER_DECLINE_LIMIT - 1, 'ses_other', 3_600_000),
        { session_id: 'ses_other', created_at: ago(USER_DECLINE_WINDOW_MS - 1) },
      ],
      { scope: 'user', retryAfterSeconds: 1 },
    ],
    [
      'this session’s declines older than 24 h do not count for the session either',
      [
        ...declines(SESSION_DECLINE_LIMIT - 1, 'ses_this', 60_000),
        { session_id: 'ses_this', created_at: ago(USER_DECLINE_WINDOW_MS + 1) },
      ],
      undefined,
    ],
    [
      'both limits: the later of the two',
      declines(USER_DECLINE_LIMIT, 'ses_this', USER_DECLINE_WINDOW_MS - 10_000),
      { scope: 'session', retryAfterSeconds: 20 * 60 },
    ],
    [
      'both limits, the user one later',
      declines(USER_DECLINE_LIMIT, 'ses_this', 120_000),
      { scope: 'user', retryAfterSeconds: (USER_DECLINE_WINDOW_MS - 120_000) / 1000 },
    ],
    [
      'order of the input does not matter',
      declines(USER_DECLINE_LIMIT, 'ses_other', 3_600_000).reverse(),
      { scope: 'user', retryAfterSeconds: (USER_DECLINE_WINDOW_MS - 3_600_000) / 1000 },
    ],
    [
      'shuffled, over the user limit, across sessions: the right one must leave the window',
      // 13 declines a minute apart from 2 h ago, 4 of them this session's, in a scrambled order: the fourth
      // oldest (3 min after the first) is the one whose leaving brings the count below the limit.
      [7, 0, 12, 3, 9, 1, 11, 5, 2, 10, 4, 8, 6].map((i) => ({
        session_id: i % 3 === 0 && i < 12 ? 'ses_this' : 'ses_other',
        created_at: ago(7_200_000 - i * 60_000),
      })),
      { scope: 'user', retryAfterSeconds: (USER_DECLINE_WINDOW_MS - 7_200_000 + 3 * 60_000) / 1000 },
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => assert.deepEqual(declineBlock(input, SESSION, NOW), expected));
  }

  it('never asks to wait less than 1 s, and rounds a part second up', () => {
    const expiring = { id: 'ses_this', expires_at: new Date(NOW.getTime() + 1500) };
    assert.deepEqual(declineBlock(declines(SESSION_DECLINE_LIMIT, 'ses_this', 60_000), expiring, NOW), {
      scope: 'session',
      retryAfterSeconds: 2,
    });
    const expired = { id: 'ses_this', expires_at: ago(1) };
    assert.equal(
      declineBlock(declines(SESSION_DECLINE_LIMIT, 'ses_this', 60_000), expired, NOW)?.retryAfterSeconds,
      1,
    );
  });
});

describe('isIssuerDecline', () => {
  const table: [Parameters<typeof isIssuerDecline>[0], string, boolean][] = [
    ['card', 'card_declined', true],
    ['card', 'insufficient_funds', true],
    ['card', 'expired_card', true],
    ['card', 'incorrect_cvc', true],
    ['card', 'do_not_honor', true],
    ['card', 'authentication_failed', false],
    ['card', 'authentication_required', false],
    ['apple_pay', 'card_declined', false],
    ['google_pay', 'card_declined', false],
    ['alipay', 'apm_declined', false],
    ['wechat_pay', 'apm_declined', false],
    ['unionpay', 'apm_declined', false],
  ];
  for (const [method, code, expected] of table) {
    it(`${method} ${code}: ${expected ? 'counts' : 'does not count'}`, () =>
      assert.equal(isIssuerDecline(method, code), expected));
  }
});
