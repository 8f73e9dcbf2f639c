import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ClientApi, Session } from './api.ts';
import { errorOf } from './outcomes.ts';

/**
 * The session's clock: a minute before the token lapses the tenant is warned and may keep signed in (the server
 * extends the token up to the session's end); when it lapses, `onLapse` runs at once rather than at the next click.
 */
export function useSessionExpiry(
  api: ClientApi | undefined,
  session: Session | undefined,
  onLapse: () => void,
): { warning: JSX.Element | null } {
  /** After Keep me signed in: the server's answer (`n` counts extensions, so an equal answer re-arms the timers). */
  const [extended, setExtended] = useState<{
    sessionId: string;
    seconds: number;
    extendable: boolean;
    n: number;
  }>();
  const [warned, setWarned] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const lapse = useRef(onLapse);
  lapse.current = onLapse;
  // Armed in the same render that shows the session, so no timer is missed.
  const expiry =
    extended && extended.sessionId === session?.session_id
      ? extended
      : session && {
          sessionId: session.session_id,
          seconds: session.expires_in_seconds,
          extendable: Date.parse(session.token_expires_at) < Date.parse(session.expires_at),
          n: 0,
        };

  useEffect(() => {
    if (!expiry) return;
    setWarned(false);
    const warn = setTimeout(() => setWarned(true), Math.max(0, expiry.seconds - 60) * 1000);
    const end = setTimeout(() => lapse.current(), expiry.seconds * 1000);
    return () => {
      clearTimeout(warn);
      clearTimeout(end);
    };
  }, [expiry?.sessionId, expiry?.n]);

  const keep = async () => {
    if (!api || !session || busy) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const answer = await api.extendSession();
      setExtended({
        sessionId: session!.session_id,
        seconds: answer.expires_in_seconds,
        extendable: answer.extendable,
        n: (expiry?.n ?? 0) + 1,
      });
    } catch (error) {
      const failure = errorOf(error);
      if (failure.code === 'session_expired') lapse.current();
      else setProblem(failure.message);
    } finally {
      setBusy(false);
    }
  };

  if (!warned || !expiry) return { warning: null };
  return {
    warning: (
      <div class="alert notice-expiring" role="alert">
        {expiry.extendable ? (
          <>
            <p>Your session ends in about a minute.</p>
            <button type="button" class="secondary" onClick={() => void keep()} disabled={busy}>
              Keep me signed in
            </button>
            {problem ? <p>{problem}</p> : null}
          </>
        ) : (
          <p>
            Your session ends in about a minute and cannot be extended further. Pay now, or start again from
            your rental platform.
          </p>
        )}
      </div>
    ),
  };
}
