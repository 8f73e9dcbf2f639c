import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, type Invite, type PasskeyOptions, type SignedIn } from './api.ts';
import { createPasskey, loadPasskeys, passkeyProblem, passkeysSupported } from './passkey.ts';
import { Alert, Field, messageOf, roleName, When } from './ui.tsx';

const MIN_PASSWORD = 12;
const CODE = /^\d{6}$/;

/** The rpi_… token of the set-up link, from the address's fragment (never sent to any server by the browser). */
function inviteToken(): string | undefined {
  const token = new URLSearchParams(location.hash.slice(1)).get('invite');
  return token && /^rpi_[A-Za-z0-9_-]{1,96}$/.test(token) ? token : undefined;
}

/** The secret in groups of four, as authenticator apps show it and people type it. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

type Factor = 'totp' | 'passkey';

interface Errors {
  password?: string;
  code?: string;
}

type Loaded =
  | { state: 'loading' }
  | { state: 'invalid'; message: string }
  | { state: 'failed'; message: string }
  | { state: 'ready'; invite: Invite };

const NO_LINK =
  'This page needs the set-up link from your invite (it ends in #invite=…). Open the link you were sent, whole.';

/** Setting up a sign-in from an invite: a password, then an authenticator app or a passkey. */
export function SetUp() {
  const [token] = useState(inviteToken);
  const [loaded, setLoaded] = useState<Loaded>(
    token ? { state: 'loading' } : { state: 'invalid', message: NO_LINK },
  );
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    // Another set-up link opened in this tab changes only the fragment: start again with it.
    const onHash = () => {
      if (inviteToken() !== token) location.reload();
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    document.title = 'Set up your sign-in · rentpay dashboard';
    if (!token) return;
    setLoaded({ state: 'loading' });
    call<Invite>('POST', '/setup/invite/', { invite: token }, { signedOut: true }).then(
      (invite) => setLoaded({ state: 'ready', invite }),
      (error) =>
        setLoaded(
          error instanceof ApiError && error.status === 404
            ? { state: 'invalid', message: error.message }
            : { state: 'failed', message: messageOf(error) },
        ),
    );
  }, [attempt]);

  return (
    <main id="main" class="narrow">
      <p class="brand">rentpay dashboard</p>
      <h1>Set up your sign-in</h1>
      {loaded.state === 'loading' ? (
        <p role="status">Reading your invite…</p>
      ) : loaded.state === 'invalid' ? (
        <>
          <Alert>{loaded.message}</Alert>
          <p>
            Set up already? <a href="/dashboard/login">Sign in</a>.
          </p>
        </>
      ) : loaded.state === 'failed' ? (
        <>
          <Alert>{loaded.message}</Alert>
          <button type="button" onClick={() => setAttempt(attempt + 1)}>
            Try again
          </button>
        </>
      ) : (
        <SetUpForm
          token={token!}
          invite={loaded.invite}
          onInvalid={(message) => setLoaded({ state: 'invalid', message })}
        />
      )}
    </main>
  );
}

function SetUpForm(props: { token: string; invite: Invite; onInvalid(message: string): void }) {
  const { token, invite } = props;
  const [password, setPassword] = useState('');
  const [factor, setFactor] = useState<Factor>('totp');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const passwordRef = useRef<HTMLInputElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);

  const choose = (chosen: Factor) => {
    setFactor(chosen);
    setErrors({ ...errors, code: undefined });
    if (chosen === 'passkey') loadPasskeys().catch(() => {});
  };

  const fail = (error: unknown) => {
    setBusy(false);
    if (error instanceof ApiError && error.status === 404) return props.onInvalid(error.message);
    if (error instanceof ApiError && error.code === 'invalid_fields') {
      const found: Errors = { password: error.field('password'), code: error.field('totp.code') };
      setErrors(found);
      setProblem(error.rest(['password', 'totp.code']));
      if (found.password) passwordRef.current?.focus();
      else if (found.code) codeRef.current?.focus();
      return;
    }
    setProblem(messageOf(error));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const typedCode = code.replace(/\s/g, '');
    const found: Errors = {};
    if ([...password].length < MIN_PASSWORD) found.password = `Use at least ${MIN_PASSWORD} characters.`;
    if (factor === 'totp' && !CODE.test(typedCode)) {
      found.code = 'Enter the 6 digits your authenticator app shows for rentpay.';
    }
    setErrors(found);
    setProblem(undefined);
    if (found.password) return passwordRef.current?.focus();
    if (found.code) return codeRef.current?.focus();
    setBusy(true);
    try {
      if (factor === 'totp') {
        await call<SignedIn>(
          'POST',
          '/setup/',
          { invite: token, password, totp: { secret: invite.totp.secret, code: typedCode } },
          { signedOut: true },
        );
      } else {
        const { challenge_id, options } = await call<PasskeyOptions>(
          'POST',
          '/setup/passkey-options/',
          { invite: token },
          { signedOut: true },
        );
        let response: unknown;
        try {
          response = await createPasskey(options);
        } catch (error) {
          throw new Error(passkeyProblem(error, true));
        }
        await call<SignedIn>(
          'POST',
          '/setup/',
          { invite: token, password, passkey: { challenge_id, response } },
          { signedOut: true },
        );
      }
      location.assign('/dashboard');
    } catch (error) {
      fail(error);
    }
  };

  const qr = `data:image/svg+xml,${encodeURIComponent(invite.totp.qr_svg)}`;
  return (
    <>
      <dl class="facts">
        <dt>Email</dt>
        <dd>{invite.email}</dd>
        <dt>Role</dt>
        <dd>{roleName(invite.role)}</dd>
        <dt>Team</dt>
        <dd>{invite.team ? invite.team.name : 'rentpay staff'}</dd>
        <dt>Link valid until</dt>
        <dd>
          <When at={invite.expires_at} />
        </dd>
      </dl>
      {problem ? <Alert focus>{problem}</Alert> : null}
      <form onSubmit={submit} noValidate>
        {/* For password managers: the password belongs to this email. */}
        <input type="email" autocomplete="username" value={invite.email} readOnly hidden />
        <Field
          id="password"
          label="Choose a password"
          hint={`At least ${MIN_PASSWORD} characters. A few unrelated words make a good one.`}
          type="password"
          autocomplete="new-password"
          value={password}
          onValue={setPassword}
          error={errors.password}
          inputRef={passwordRef}
        />
        <fieldset class="choices">
          <legend>Second step when you sign in</legend>
          <label class="choice">
            <input
              type="radio"
              name="factor"
              value="totp"
              checked={factor === 'totp'}
              onChange={() => choose('totp')}
            />
            Authenticator app <span class="hint">(a 6-digit code each time)</span>
          </label>
          {passkeysSupported() ? (
            <label class="choice">
              <input
                type="radio"
                name="factor"
                value="passkey"
                checked={factor === 'passkey'}
                onChange={() => choose('passkey')}
              />
              Passkey <span class="hint">(this device’s fingerprint, face or PIN)</span>
            </label>
          ) : null}
        </fieldset>
        {factor === 'totp' ? (
          <section class="panel" aria-labelledby="totp-heading">
            <h2 id="totp-heading">Add rentpay to your authenticator app</h2>
            <p>Scan the QR code with the app, or type the key below into it.</p>
            <img
              class="qr"
              src={qr}
              width={180}
              height={180}
              alt={`QR code for your authenticator app: rentpay, ${invite.email}`}
            />
            <p>
              Key:{' '}
              <code class="secret" data-testid="totp-secret">
                {grouped(invite.totp.secret)}
              </code>
            </p>
            <Field
              id="code"
              label="6-digit code from the app"
              inputMode="numeric"
              autocomplete="one-time-code"
              maxLength={7}
              value={code}
              onValue={setCode}
              error={errors.code}
              inputRef={codeRef}
            />
          </section>
        ) : (
          <section class="panel" aria-labelledby="passkey-heading">
            <h2 id="passkey-heading">Create a passkey</h2>
            <p>
              Your browser will ask to create a passkey for rentpay on this device (or a security key or
              phone). Afterwards you sign in with it alone.
            </p>
          </section>
        )}
        <button type="submit" class="primary wide" disabled={busy}>
          {busy ? 'Setting up…' : factor === 'totp' ? 'Set up and sign in' : 'Create passkey and sign in'}
        </button>
      </form>
    </>
  );
}
