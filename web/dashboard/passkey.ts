/**
 * Passkeys through @simplewebauthn/browser, loaded only when someone uses one (it is not part of the first screen).
 */

import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';

let loading: Promise<typeof import('@simplewebauthn/browser')> | undefined;

/** The library, once; a failed load is tried again next time. Called early to have it ready for the click. */
export function loadPasskeys(): Promise<typeof import('@simplewebauthn/browser')> {
  loading ??= import('@simplewebauthn/browser').catch((error) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

export function passkeysSupported(): boolean {
  return typeof window.PublicKeyCredential === 'function';
}

/** Creates a passkey with the server's creation options (JSON form). */
export async function createPasskey(options: Record<string, unknown>): Promise<RegistrationResponseJSON> {
  const { startRegistration } = await loadPasskeys();
  return startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });
}

/** Signs a challenge with one of the person's passkeys for this site. */
export async function signWithPasskey(options: Record<string, unknown>): Promise<AuthenticationResponseJSON> {
  const { startAuthentication } = await loadPasskeys();
  return startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });
}

/** What to tell the person when the browser's passkey step did not finish. */
export function passkeyProblem(error: unknown, creating: boolean): string {
  const name = error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') {
    return creating
      ? 'No passkey was created: the browser’s step was cancelled or timed out. Try again, or use an authenticator app.'
      : 'No passkey was used: the browser’s step was cancelled or timed out. Try again, or sign in with your password and code.';
  }
  if (name === 'InvalidStateError') {
    return 'This device already holds a passkey for your sign-in. Sign in with it instead.';
  }
  if (name === 'ChunkLoadError' || (error instanceof TypeError && /import|fetch/i.test(error.message))) {
    return 'The passkey part of the page could not load. Check your connection and try again.';
  }
  return `The browser could not ${creating ? 'create' : 'use'} a passkey${error instanceof Error && error.message ? ` (${error.message})` : ''}.`;
}
