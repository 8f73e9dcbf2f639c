import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, type LoginReason, type PasskeyOptions, type SignedIn } from './api.ts';
import { loadPasskeys, passkeyProblem, passkeysSupported, signWithPasskey } from './passkey.ts';
import { Alert, Field, messageOf, Notice } from './ui.tsx';

const REASONS: Record<LoginReason, { text: string; alert: boolean }> = {
  expired: {
    text: 'Your session has ended (30 minutes without use, or 12 hours in all). Sign in again to go on.',
    alert: true,
  },
  signed_out: { text: 'You have signed out.', alert: false },
  signin: { text: 'Sign in to see the dashboard.', alert: false },
};

/** Why the page was opened (?reason=…), read once; the address is then tidied so a reload does not repeat it. */
function takeReason(): LoginReason | undefined {
  const reason = new URLSearchParams(location.search).get('reason');
  if (location.search) history.replaceState(null, '', location.pathname);
  return reason && reason in REASONS ? (reason as LoginReason) : undefined;
}

const CODE = /^\d{6}$/;

interface Errors {
  email?: string;
  password?: string;
  code?: string;
}

/** Signing in: email, password and the authenticator app's code; or a passkey alone. */
export function Login() {
  const [reason] = useState(takeReason);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState<'password' | 'passkey'>();
  const refs = { email: useRef<HTMLInputElement>(null), password: useRef<HTMLInputElement>(null) };
  const codeRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = 'Sign in · rentpay dashboard';
    // The passkey library is fetched in the background, ready for the button.
    if (passkeysSupported()) loadPasskeys().catch(() => {});
  }, []);

  const signedIn = (_person: SignedIn) => location.assign('/dashboard');

  const submit = async (event: Event) => {
    event.preventDefault();
    const typedCode = code.replace(/\s/g, '');
    const found: Errors = {};
    if (!email.trim()) found.email = 'Enter your email address.';
    if (!password) found.password = 'Enter your password.';
    if (!CODE.test(typedCode)) found.code = 'Enter the 6 digits your authenticator app shows for rentpay.';
    setErrors(found);
    setProblem(undefined);
    if (found.email) return refs.email.current?.focus();
    if (found.password) return refs.password.current?.focus();
    if (found.code) return codeRef.current?.focus();
    setBusy('password');
    try {
      signedIn(
        await call<SignedIn>(
          'POST',
          '/sign-in/',
          { email: email.trim(), password, code: typedCode },
          { signedOut: true },
        ),
      );
    } catch (error) {
      // A code works once: a new one is needed whatever went wrong.
      setCode('');
      setProblem(messageOf(error));
      setBusy(undefined);
    }
  };

  const withPasskey = async () => {
    setErrors({});
    setProblem(undefined);
    setBusy('passkey');
    try {
      const { challenge_id, options } = await call<PasskeyOptions>(
        'POST',
        '/sign-in/passkey-options/',
        undefined,
        { signedOut: true },
      );
      let response: unknown;
      try {
        response = await signWithPasskey(options);
      } catch (error) {
        throw new Error(passkeyProblem(error, false));
      }
      signedIn(
        await call<SignedIn>('POST', '/sign-in/passkey/', { challenge_id, response }, { signedOut: true }),
      );
    } catch (error) {
      setProblem(error instanceof ApiError || error instanceof Error ? error.message : messageOf(error));
      setBusy(undefined);
    }
  };

  const note = reason ? REASONS[reason] : undefined;
  return (
    <main id="main" class="narrow">
      <p class="brand">rentpay dashboard</p>
      <h1>Sign in</h1>
      {note ? note.alert ? <Alert>{note.text}</Alert> : <Notice>{note.text}</Notice> : null}
      {problem ? <Alert focus>{problem}</Alert> : null}
      <form onSubmit={submit} noValidate>
        <Field
          id="email"
          label="Email"
          type="email"
          autocomplete="username"
          value={email}
          onValue={setEmail}
          error={errors.email}
          inputRef={refs.email}
        />
        <Field
          id="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
          error={errors.password}
          inputRef={refs.password}
        />
        <Field
          id="code"
          label="Code from your authenticator app"
          hint="6 digits; a new one every 30 seconds."
          inputMode="numeric"
          autocomplete="one-time-code"
          maxLength={7}
          value={code}
          onValue={setCode}
          error={errors.code}
          inputRef={codeRef}
        />
        <button type="submit" class="primary wide" disabled={busy !== undefined}>
          {busy === 'password' ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {passkeysSupported() ? (
        <div class="or-block">
          <p class="or">or</p>
          <button type="button" class="wide" onClick={withPasskey} disabled={busy !== undefined}>
            {busy === 'passkey' ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
          </button>
        </div>
      ) : null}
      <p class="hint footer-note">
        New here? Use the set-up link from your invite. Lost your app or passkey? Ask an admin of your team to
        invite you again.
      </p>
    </main>
  );
}
