import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, goToLogin, type SignedIn, setCsrfToken } from './api.ts';
import { parseRoute, type Route } from './route.ts';
import { Alert, messageOf, roleName } from './ui.tsx';

/** What a section of the signed-in dashboard is given. */
export interface SectionProps {
  me: SignedIn;
  /** Whether to move focus to its heading when it appears (the person moved to it, not a first load). */
  focusHeading: boolean;
  /** Where in the section: its parts and query (`#payments/pay_1` → path `['pay_1']`). */
  route: Route;
}

type SectionId =
  | 'home'
  | 'payments'
  | 'tenants'
  | 'payouts'
  | 'developers'
  | 'settings'
  | 'team'
  | 'audit-log'
  | 'integrators'
  | 'payout-runs'
  | 'health';

interface Section {
  id: SectionId;
  name: string;
  allowed(me: SignedIn): boolean;
  load(): Promise<ComponentType<SectionProps>>;
}

/** A platform's person (the operator's staff work on platforms through the operator console). */
const platform = (me: SignedIn) => me.person.integrator_id !== null;
const operator = (me: SignedIn) => me.person.integrator_id === null;

/** The sections, each loaded when first opened; a person sees only those their role may use. */
const SECTIONS: Section[] = [
  {
    id: 'home',
    name: 'Home',
    allowed: (me) => platform(me) && me.permissions.includes('payments.read'),
    load: () => import('./home/Home.tsx').then((part) => part.Home),
  },
  {
    id: 'payments',
    name: 'Payments',
    allowed: (me) => platform(me) && me.permissions.includes('payments.read'),
    load: () => import('./payments/Payments.tsx').then((part) => part.Payments),
  },
  {
    id: 'tenants',
    name: 'Tenants',
    allowed: (me) => platform(me) && me.permissions.includes('payments.read'),
    load: () => import('./tenants/Tenants.tsx').then((part) => part.Tenants),
  },
  {
    id: 'payouts',
    name: 'Payouts',
    allowed: (me) => platform(me) && me.permissions.includes('payments.read'),
    load: () => import('./payouts/Payouts.tsx').then((part) => part.Payouts),
  },
  {
    id: 'developers',
    name: 'Developers',
    allowed: (me) => platform(me) && me.permissions.includes('events.read'),
    load: () => import('./Developers.tsx').then((part) => part.Developers),
  },
  {
    id: 'settings',
    name: 'Settings',
    allowed: (me) => platform(me) && me.permissions.includes('settings.manage'),
    load: () => import('./settings/Settings.tsx').then((part) => part.Settings),
  },
  {
    id: 'integrators',
    name: 'Integrators',
    allowed: (me) => operator(me) && me.permissions.includes('payments.read'),
    load: () => import('./operator/Integrators.tsx').then((part) => part.Integrators),
  },
  {
    id: 'payout-runs',
    name: 'Payout runs',
    allowed: (me) => operator(me) && me.permissions.includes('payments.read'),
    load: () => import('./operator/PayoutRuns.tsx').then((part) => part.PayoutRuns),
  },
  {
    id: 'health',
    name: 'System health',
    allowed: operator,
    load: () => import('./operator/Health.tsx').then((part) => part.Health),
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

function hashRoute(): Route {
  return parseRoute(location.hash);
}

/** The signed-in dashboard: who is signed in, Sign out, and the sections their role may use. */
export function Shell() {
  const [me, setMe] = useState<SignedIn>();
  const [problem, setProblem] = useState<string>();
  const [route, setRoute] = useState(hashRoute);
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
      const next = hashRoute();
      if (!SECTIONS.some((section) => section.id === next.section)) return;
      setRoute(next);
      setMoved(true);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const sections = me ? SECTIONS.filter((section) => section.allowed(me)) : [];
  const current = sections.find((section) => section.id === route.section) ?? sections[0];
  // A section shown because the address named none (or one this person may not use) starts at its top.
  const sectionRoute = current && current.id === route.section ? route : parseRoute(current?.id ?? '');

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
          <SectionView key={current.id} section={current} me={me} focusHeading={moved} route={sectionRoute} />
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
function SectionView(props: { section: Section; me: SignedIn; focusHeading: boolean; route: Route }) {
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
  if (Part) return <Part me={props.me} focusHeading={props.focusHeading} route={props.route} />;
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
