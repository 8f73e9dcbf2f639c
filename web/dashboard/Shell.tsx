import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, goToLogin, type SignedIn, setCsrfToken } from './api.ts';
import { Alert, messageOf, roleName } from './ui.tsx';

/** What a section of the signed-in dashboard is given. */
export interface SectionProps {
  me: SignedIn;
  /** Whether to move focus to its heading when it appears (the person moved to it, not a first load). */
  focusHeading: boolean;
}

type SectionId = 'developers' | 'team' | 'audit-log';

interface Section {
  id: SectionId;
  name: string;
  allowed(me: SignedIn): boolean;
  load(): Promise<ComponentType<SectionProps>>;
}

/** The sections, each loaded when first opened; a person sees only those their role may use. */
const SECTIONS: Section[] = [
  {
    id: 'developers',
    name: 'Developers',
    // A platform's pages: the operator's staff work on platforms through the operator console.
    allowed: (me) => me.person.integrator_id !== null && me.permissions.includes('events.read'),
    load: () => import('./Developers.tsx').then((part) => part.Developers),
  },
  {
    id: 'team',
    name: 'Team',
    allowed: (me) => me.permissions.includes('team.manage'),
    load: () => import('./Team.tsx').then((part) => part.Team),
  },
  {
    id: 'audit-log',
    name: 'Audit log',
    allowed: (me) => me.permissions.includes('audit.read'),
    load: () => import('./AuditLog.tsx').then((part) => part.AuditLog),
  },
];

function hashSection(): string {
  return location.hash.slice(1);
}

/** The signed-in dashboard: who is signed in, Sign out, and the sections their role may use. */
export function Shell() {
  const [me, setMe] = useState<SignedIn>();
  const [problem, setProblem] = useState<string>();
  const [wanted, setWanted] = useState(hashSection);
  const [moved, setMoved] = useState(false);
  const [signingOut, setSigningOut] = useState(false);

  useEffect(() => {
    call<SignedIn>('GET', '/me/').then(
      (signedIn) => {
        setCsrfToken(signedIn.csrf_token);
        setMe(signedIn);
      },
      (error) => setProblem(messageOf(error)),
    );
    const onHash = () => {
      if (!SECTIONS.some((section) => section.id === hashSection())) return;
      setWanted(hashSection());
      setMoved(true);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const sections = me ? SECTIONS.filter((section) => section.allowed(me)) : [];
  const current = sections.find((section) => section.id === wanted) ?? sections[0];

  useEffect(() => {
    document.title = `${current ? `${current.name} · ` : ''}rentpay dashboard`;
  }, [current]);

  const signOut = async (everywhere: boolean) => {
    setSigningOut(true);
    try {
      await call('POST', '/sign-out/', everywhere ? { everywhere: true } : undefined);
      goToLogin('signed_out');
    } catch (error) {
      setSigningOut(false);
      setProblem(messageOf(error));
    }
  };

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="bar">
          <a class="brand" href="/dashboard">
            rentpay dashboard
          </a>
          {me ? (
            <div class="who">
              <span class="email">{me.person.email}</span>
              <span class="badge">{roleName(me.person.role)}</span>
              <button type="button" class="small" onClick={() => signOut(false)} disabled={signingOut}>
                {signingOut ? 'Signing out…' : 'Sign out'}
              </button>
              <button type="button" class="small" onClick={() => signOut(true)} disabled={signingOut}>
                Sign out everywhere
              </button>
            </div>
          ) : null}
        </div>
        {sections.length > 0 ? (
          <nav aria-label="Dashboard">
            <ul>
              {sections.map((section) => (
                <li key={section.id}>
                  <a href={`#${section.id}`} aria-current={section === current ? 'page' : undefined}>
                    {section.name}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>
        {problem ? <Alert focus>{problem}</Alert> : null}
        {!me ? (
          problem ? null : (
            <p role="status">Loading…</p>
          )
        ) : current ? (
          <SectionView key={current.id} section={current} me={me} focusHeading={moved} />
        ) : (
          <>
            <h1>Welcome</h1>
            <p>
              Your role ({roleName(me.person.role)}) has no pages in the dashboard yet. An admin of your team
              can give you another role.
            </p>
          </>
        )}
      </main>
    </>
  );
}

/** A section, once its part of the page has loaded. */
function SectionView(props: { section: Section; me: SignedIn; focusHeading: boolean }) {
  const { section } = props;
  const [Part, setPart] = useState<ComponentType<SectionProps>>();
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    setFailed(false);
    section.load().then(
      (loaded) => setPart(() => loaded),
      () => setFailed(true),
    );
  }, [attempt]);
  if (Part) return <Part me={props.me} focusHeading={props.focusHeading} />;
  if (failed) {
    return (
      <>
        <Alert>This part of the dashboard could not load. Check your connection and try again.</Alert>
        <button type="button" onClick={() => setAttempt(attempt + 1)}>
          Try again
        </button>
      </>
    );
  }
  return <p role="status">Loading {section.name.toLowerCase()}…</p>;
}
