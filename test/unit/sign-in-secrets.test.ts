/** Passwords (scrypt) and authenticator-app codes (TOTP, RFC 6238) as pure functions. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/people/password.ts';
import {
  base32Decode,
  base32Encode,
  matchTotp,
  newTotpSecret,
  totpCode,
  totpStep,
  totpUri,
} from '../../src/people/totp.ts';

describe('passwords', () => {
  it('at least 12 characters (counted as characters, not bytes), at most 256', () => {
    assert.equal(passwordProblem('short pass!'), 'Use at least 12 characters.');
    assert.equal(passwordProblem('correct horse'), undefined);
    assert.equal(passwordProblem('ééééééééééé'), 'Use at least 12 characters.');
    assert.equal(passwordProblem('x'.repeat(257)), 'Use at most 256 characters.');
  });

  it('a hash verifies its password only, is salted, and names its cost', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    assert.match(first, /^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    assert.notEqual(first, second, 'a fresh salt each time');
    assert.equal(await verifyPassword('correct horse battery', first), true);
    assert.equal(await verifyPassword('correct horse batterY', first), false);
    assert.equal(await verifyPassword('correct horse battery', 'bcrypt$x'), false);
    assert.equal(await verifyPassword('correct horse battery', ''), false);
  });

  it('the same text in another Unicode form is the same password', async () => {
    const composed = 'café au lait 12';
    const decomposed = 'cafe\u0301 au lait 12';
    assert.equal(await verifyPassword(decomposed, await hashPassword(composed)), true);
  });
});

describe('TOTP', () => {
  // RFC 6238, appendix B: the SHA-1 secret "12345678901234567890", 8 digits.
  const RFC_SECRET = base32Encode(Buffer.from('12345678901234567890'));
  const VECTORS: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];

  it('matches the RFC 6238 test vectors', () => {
    for (const [seconds, code] of VECTORS) {
      assert.equal(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000)), 8), code, `T=${seconds}`);
    }
  });

  it('base32 round-trips, ignoring case, spaces and padding', () => {
    const bytes = Buffer.from('12345678901234567890');
    assert.equal(RFC_SECRET, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    assert.deepEqual(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq===='), bytes);
    assert.throws(() => base32Decode('GEZ1'), /Not base32/);
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(base32Decode(secret).length, 20);
  });

  it('accepts the code of this step or the step either side, and says which step it was', () => {
    const at = new Date(1_111_111_111_000);
    const step = totpStep(at);
    for (const offset of [-1, 0, 1]) {
      assert.equal(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step + offset), at), step + offset);
    }
    for (const offset of [-2, 2]) {
      assert.equal(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step + offset), at), undefined);
    }
    assert.equal(matchTotp(RFC_SECRET, '12345', at), undefined);
    assert.equal(matchTotp(RFC_SECRET, '1234567', at), undefined);
  });

  it('the otpauth URI an authenticator app reads', () => {
    assert.equal(
      totpUri('JBSWY3DPEHPK3PXP', 'ada@example.com', 'rentpay (Acme Lets)'),
      'otpauth://totp/rentpay%20(Acme%20Lets):ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=rentpay%20(Acme%20Lets)&algorithm=SHA1&digits=6&period=30',
    );
  });
});
