import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config/config.ts';
import { PRODUCTION_ENV } from '../support/fixtures.ts';

function errorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

const TEST_STRIPE = {
  PAYMENT_PROCESSOR: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_51abc',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_51abc',
  STRIPE_WEBHOOK_SECRET: 'whsec_abc',
};
/** 32 bytes in base64: the document encryption key production requires. */
const DOCUMENT_KEY = Buffer.alloc(32, 7).toString('base64');

/** Everything production needs besides SERVICE_ENV, so that each case below is refused for one reason. */
const { SERVICE_ENV: _production, ...LIVE_STRIPE } = PRODUCTION_ENV;

describe('configuration', () => {
  it('TRUST_PROXY: unset trusts no proxy; a list of addresses, ranges and proxy-addr names is read', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.deepEqual(
      loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 2001:db8::/32 ,loopback,192.0.2.1' }).trustProxy,
      ['10.0.0.0/8', '2001:db8::/32', 'loopback', '192.0.2.1'],
    );
  });

  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, undefined);
    assert.match(config.dataDir, /\/data$/);
    assert.equal(config.serviceEnv, 'sandbox');
    assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.operatorToken, undefined);
    assert.equal(config.allowPrivateDocumentHosts, false);
    assert.equal(config.allowPrivateWebhookHosts, false);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db:5432/rentpay',
      DATA_DIR: '/var/lib/rentpay',
      PUBLIC_URL: 'https://pay.example/',
      SERVICE_ENV: 'sandbox',
      REDIS_URL: 'redis://cache:6379',
      OPERATOR_TOKEN: 'a-long-operator-token-of-32-chars!',
      ALLOW_PRIVATE_DOCUMENT_HOSTS: '1',
      ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/rentpay');
    assert.equal(config.dataDir, '/var/lib/rentpay');
    assert.equal(config.publicUrl, 'https://pay.example');
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.operatorToken, 'a-long-operator-token-of-32-chars!');
    assert.equal(config.allowPrivateDocumentHosts, true);
    assert.equal(config.allowPrivateWebhookHosts, true);
  });

  it('production needs DOCUMENT_ENCRYPTION_KEY: 32 bytes in base64; previous keys are read as a list', () => {
    const { DOCUMENT_ENCRYPTION_KEY: _key, ...withoutKey } = LIVE_STRIPE;
    assert.throws(
      () => loadConfig({ SERVICE_ENV: 'production', ...withoutKey }),
      /DOCUMENT_ENCRYPTION_KEY is required in production: 32 random bytes in base64/,
    );
    for (const bad of ['short', Buffer.alloc(31).toString('base64'), `${DOCUMENT_KEY}!`]) {
      assert.throws(
        () => loadConfig({ SERVICE_ENV: 'production', ...LIVE_STRIPE, DOCUMENT_ENCRYPTION_KEY: bad }),
        /DOCUMENT_ENCRYPTION_KEY must be 32 bytes in base64/,
        bad,
      );
    }
    const previous = Buffer.alloc(32, 9).toString('base64');
    const config = loadConfig({
      SERVICE_ENV: 'production',
      ...LIVE_STRIPE,
      DOCUMENT_ENCRYPTION_PREVIOUS_KEYS: ` ${previous} , ${DOCUMENT_KEY}`,
    });
    assert.deepEqual(config.documentEncryptionKey, Buffer.alloc(32, 7));
    assert.deepEqual(config.documentEncryptionPreviousKeys, [Buffer.alloc(32, 9), Buffer.alloc(32, 7)]);
    assert.equal(loadConfig({ SERVICE_ENV: 'sandbox' }).documentEncryptionKey, undefined);
  });

  it('production with Stripe live keys loads, with Stripe’s own endpoints by default', () => {
    const config = loadConfig({ SERVICE_ENV: 'production', ...LIVE_STRIPE });
    assert.equal(config.serviceEnv, 'production');
    assert.equal(config.paymentProcessor, 'stripe');
    assert.deepEqual(config.stripe, {
      secretKey: 'rk_live_51abc',
      publishableKey: 'pk_live_51abc',
      webhookSecret: 'whsec_abc',
      apiBase: 'https://api.stripe.com',
      jsUrl: 'https://js.stripe.com/v3/',
    });
  });

  const cases: [string, Record<string, string>, RegExp][] = [
    ['PORT', { PORT: 'eighty' }, /PORT must be a whole number from 0 to 65535 \(got "eighty"\)/],
    ['PORT', { PORT: '70000' }, /PORT must be a whole number/],
    ['PORT', { PORT: '-1' }, /PORT must be a whole number/],
    [
      'DATABASE_URL',
      { DATABASE_URL: 'mysql://localhost/x' },
      /DATABASE_URL must use one of postgres:, postgresql:/,
    ],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }, /DATABASE_URL must be a URL/],
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://x' }, /PUBLIC_URL must use one of http:, https:/],
    [
      'SERVICE_ENV',
      { SERVICE_ENV: 'staging' },
      /SERVICE_ENV must be "sandbox" or "production" \(got "staging"\)/,
    ],
    ['REDIS_URL', { REDIS_URL: 'http://cache' }, /REDIS_URL must use one of redis:, rediss:/],
    ['OPERATOR_TOKEN', { OPERATOR_TOKEN: 'short' }, /OPERATOR_TOKEN must be at least 24 characters/],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'short' }, /METRICS_TOKEN must be at least 24 printable characters/],
    [
      'METRICS_TOKEN',
      { METRICS_TOKEN: 'a metrics token with spaces in it' },
      /METRICS_TOKEN must be at least 24 printable characters without spaces/,
    ],
    [
      'ALLOW_PRIVATE_DOCUMENT_HOSTS',
      { ALLOW_PRIVATE_DOCUMENT_HOSTS: 'maybe' },
      /ALLOW_PRIVATE_DOCUMENT_HOSTS must be/,
    ],
    [
      'ALLOW_PRIVATE_WEBHOOK_HOSTS',
      { ALLOW_PRIVATE_WEBHOOK_HOSTS: '2' },
      /ALLOW_PRIVATE_WEBHOOK_HOSTS must be/,
    ],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [
      'PAYMENT_PROCESSOR',
      { SERVICE_ENV: 'production', ...LIVE_STRIPE, PAYMENT_PROCESSOR: '' },
      /PAYMENT_PROCESSOR must be "stripe" when SERVICE_ENV=production \(the sandbox processor never runs/,
    ],
    [
      'PAYMENT_PROCESSOR',
      { SERVICE_ENV: 'production', ...LIVE_STRIPE, PAYMENT_PROCESSOR: 'sandbox' },
      /PAYMENT_PROCESSOR must be "stripe" when SERVICE_ENV=production/,
    ],
    [
      'PAYMENT_PROCESSOR',
      { PAYMENT_PROCESSOR: 'acme' },
      /PAYMENT_PROCESSOR must be "sandbox" or "stripe" \(got "acme"\)/,
    ],
    [
      'ALLOW_PRIVATE_DOCUMENT_HOSTS',
      { SERVICE_ENV: 'production', ALLOW_PRIVATE_DOCUMENT_HOSTS: '1', ...LIVE_STRIPE },
      /ALLOW_PRIVATE_DOCUMENT_HOSTS is for local testing only and cannot be set in production/,
    ],
    [
      'ALLOW_PRIVATE_WEBHOOK_HOSTS',
      { SERVICE_ENV: 'production', ALLOW_PRIVATE_WEBHOOK_HOSTS: 'true', ...LIVE_STRIPE },
      /ALLOW_PRIVATE_WEBHOOK_HOSTS is for local testing only/,
    ],
    [
      'STRIPE_SECRET_KEY',
      { PAYMENT_PROCESSOR: 'stripe' },
      /STRIPE_SECRET_KEY is required when PAYMENT_PROCESSOR=stripe/,
    ],
    [
      'STRIPE_SECRET_KEY',
      { SERVICE_ENV: 'production', ...LIVE_STRIPE, STRIPE_SECRET_KEY: 'sk_test_abc' },
      /STRIPE_SECRET_KEY is a test key; SERVICE_ENV=production takes live keys \(sk_live_ or rk_live_\)/,
    ],
    [
      'STRIPE_SECRET_KEY',
      { ...TEST_STRIPE, STRIPE_SECRET_KEY: 'rk_live_abc' },
      /STRIPE_SECRET_KEY is a live key; SERVICE_ENV=sandbox takes test keys/,
    ],
    [
      'STRIPE_SECRET_KEY',
      { ...TEST_STRIPE, STRIPE_SECRET_KEY: 'secret' },
      /STRIPE_SECRET_KEY must start with sk_test_ or rk_test_/,
    ],
    [
      'STRIPE_PUBLISHABLE_KEY',
      { SERVICE_ENV: 'production', ...LIVE_STRIPE, STRIPE_PUBLISHABLE_KEY: 'pk_test_abc' },
      /STRIPE_PUBLISHABLE_KEY is a test key/,
    ],
    [
      'STRIPE_WEBHOOK_SECRET',
      { ...TEST_STRIPE, STRIPE_WEBHOOK_SECRET: 'secret' },
      /STRIPE_WEBHOOK_SECRET is required when PAYMENT_PROCESSOR=stripe and starts with whsec_/,
    ],
    [
      'STRIPE_APPLE_PAY_DOMAIN_FILE',
      {
        ...TEST_STRIPE,
        STRIPE_APPLE_PAY_DOMAIN_FILE: '/nonexistent/apple-developer-merchantid-domain-association',
      },
      /STRIPE_APPLE_PAY_DOMAIN_FILE must name a readable, non-empty file/,
    ],
    [
      'STRIPE_API_BASE',
      { ...TEST_STRIPE, STRIPE_API_BASE: 'ftp://stripe' },
      /STRIPE_API_BASE must use one of/,
    ],
    ['STRIPE_JS_URL', { ...TEST_STRIPE, STRIPE_JS_URL: 'not a url' }, /STRIPE_JS_URL must be a URL/],
    [
      'USER_TOKEN_TTL_SECONDS',
      { USER_TOKEN_TTL_SECONDS: '3600', SESSION_TTL_SECONDS: '1800' },
      /USER_TOKEN_TTL_SECONDS must not be longer than SESSION_TTL_SECONDS/,
    ],
    ['TRUST_PROXY', { TRUST_PROXY: 'true' }, /TRUST_PROXY must be a comma list .* \(got "true"\)/],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/8, 1' }, /\(got "1"\)/],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/33' }, /\(got "10.0.0.0\/33"\)/],
  ];
  for (const [variable, env, message] of cases) {
    it(`names ${variable} when it is wrong (${JSON.stringify(env)})`, () => {
      const error = errorFor(env);
      assert.equal(error.variable, variable);
      assert.match(error.message, message);
    });
  }

  it('never prints a database password in an error', () => {
    const error = errorFor({ DATABASE_URL: 'mysql://admin:hunter2@db/x' });
    assert.ok(!error.message.includes('hunter2'));
  });

  it('`rentpay serve` with a bad variable exits 2 naming it, before touching anything', () => {
    const result = spawnSync(process.execPath, ['bin/rentpay.mjs', 'serve'], {
      env: { ...process.env, PORT: 'eighty', DATA_DIR: '/nonexistent/never-created' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /Invalid configuration: PORT must be a whole number/);
    assert.equal(result.stdout, '');
  });

  it('production with a Stripe test key refuses to start: exit 2, one line naming the variable', () => {
    const result = spawnSync(process.execPath, ['bin/rentpay.mjs', 'serve'], {
      env: {
        ...process.env,
        SERVICE_ENV: 'production',
        ...LIVE_STRIPE,
        STRIPE_SECRET_KEY: 'sk_test_51abc',
        DATA_DIR: '/nonexistent/never-created',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 2);
    assert.equal(
      result.stderr,
      'rentpay: Invalid configuration: STRIPE_SECRET_KEY is a test key; SERVICE_ENV=production takes live keys (sk_live_ or rk_live_)\n',
    );
    assert.equal(result.stdout, '');
  });
});
