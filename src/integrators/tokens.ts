import type { ServiceEnv } from '../platform/config/config.ts';
import { randomBase62, sha256Hex } from '../platform/ids.ts';

export const SERVER_TOKEN_PREFIX: Record<ServiceEnv, string> = {
  sandbox: 'rp_sandbox_',
  production: 'rp_live_',
};

/** User session tokens (issued by user-login) carry this prefix, so the Integration API can name the mistake. */
export const USER_SESSION_TOKEN_PREFIX = 'rp_ust_';
export const USER_SESSION_TOKEN_LENGTH = 43;
const USER_SESSION_TOKEN_SHAPE = new RegExp(
  `^${USER_SESSION_TOKEN_PREFIX}[0-9A-Za-z]{${USER_SESSION_TOKEN_LENGTH}}$`,
);

/** True when `token` has the shape user-login gives: one of another shape is refused without a lookup. */
export function isUserSessionTokenShaped(token: string): boolean {
  return USER_SESSION_TOKEN_SHAPE.test(token);
}

const SERVER_TOKEN_LENGTH = 40;

export function generateServerToken(env: ServiceEnv): string {
  return `${SERVER_TOKEN_PREFIX[env]}${randomBase62(SERVER_TOKEN_LENGTH)}`;
}

/** True when `token` has the shape generateServerToken gives: one of another shape is refused without a lookup. */
export function isServerTokenShaped(token: string, env: ServiceEnv): boolean {
  const tail = token.slice(SERVER_TOKEN_PREFIX[env].length);
  return (
    token.startsWith(SERVER_TOKEN_PREFIX[env]) &&
    tail.length === SERVER_TOKEN_LENGTH &&
    /^[0-9A-Za-z]+$/.test(tail)
  );
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

export function displayPrefix(token: string): string {
  const env = token.startsWith('rp_live_') ? 'rp_live_' : 'rp_sandbox_';
  return token.slice(0, env.length + 4);
}
