import { useEffect, useRef, useState } from 'preact/hooks';
import { INTEGRATOR_ROLES, OPERATOR_ROLES } from '../../src/shared/roles.ts';
import { ApiError, call, type Role, type TeamMember } from './api.ts';
import type { SectionProps } from './Shell.tsx';
import {
  Alert,
  Field,
  messageOf,
  Notice,
  OnceSecret,
  roleName,
  Select,
  TableWrap,
  useFocusOnMount,
  When,
} from './ui.tsx';

const STATUS_NAMES: Record<TeamMember['status'], string> = {
  invited: 'Invited',
  active: 'Active',
  removed: 'Removed',
};

/** The team (admins): its people, inviting someone (the link shown once), changing a role, removing a person. */
export function Team(props: SectionProps) {
  const { me } = props;
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const roles: readonly Role[] = me.person.integrator_id === null ? OPERATOR_ROLES : INTEGRATOR_ROLES;
  const roleOptions = roles.map((role) => [role, roleName(role)] as const);
  const [people, setPeople] = useState<TeamMember[]>();
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const load = () =>
    call<{ data: TeamMember[] }>('GET', '/team/').then(
      (team) => setPeople(team.data),
      (error) => setProblem(messageOf(error)),
    );
  useEffect(() => {
    load();
  }, []);

  const changed = (person: TeamMember, message: string) => {
    setPeople((known) => known?.map((each) => (each.id === person.id ? person : each)));
    setProblem(undefined);
    setNotice(message);
  };

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Team
      </h1>
      <Invite
        roleOptions={roleOptions}
        onInvited={(person) => {
          setPeople((known) => [...(known ?? []).filter((each) => each.id !== person.id), person]);
        }}
      />
      <section class="card" aria-labelledby="people-heading">
        <h2 id="people-heading">People</h2>
        {problem ? <Alert focus>{problem}</Alert> : null}
        {notice ? <Notice>{notice}</Notice> : null}
        {!people ? (
          problem ? null : (
            <p role="status">Loading…</p>
          )
        ) : (
          <TableWrap label="People of your team">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Added</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {people.map((person) => (
                  <PersonRow
                    key={person.id}
                    person={person}
                    self={person.id === me.person.id}
                    roleOptions={roleOptions}
                    onChanged={changed}
                    onProblem={(message) => {
                      setNotice(undefined);
                      setProblem(message);
                    }}
                  />
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    </>
  );
}

function PersonRow(props: {
  person: TeamMember;
  self: boolean;
  roleOptions: readonly (readonly [string, string])[];
  onChanged(person: TeamMember, message: string): void;
  onProblem(message: string): void;
}) {
  const { person } = props;
  const [role, setRole] = useState<string>(person.role);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const removeRef = useRef<HTMLButtonElement>(null);
  const keepRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (confirming) keepRef.current?.focus();
  }, [confirming]);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      props.onProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  const changeRole = () =>
    act(async () => {
      const updated = await call<TeamMember>('PUT', `/team/${encodeURIComponent(person.id)}/role/`, { role });
      props.onChanged(updated, `${updated.email} is now ${roleName(updated.role)}.`);
    });

  const remove = () =>
    act(async () => {
      const updated = await call<TeamMember>('DELETE', `/team/${encodeURIComponent(person.id)}/`);
      setConfirming(false);
      props.onChanged(updated, `${updated.email} was removed and signed out everywhere.`);
    });

  const editable = !props.self && person.status !== 'removed';
  return (
    <tr>
      <th scope="row" class="break">
        {person.email}
        {props.self ? <span class="hint"> (you)</span> : null}
      </th>
      <td>{roleName(person.role)}</td>
      <td>{STATUS_NAMES[person.status]}</td>
      <td>
        <When at={person.created_at} />
      </td>
      <td>
        {!editable ? (
          '—'
        ) : confirming ? (
          <div class="confirm">
            <p>Remove {person.email}? They are signed out everywhere.</p>
            <div class="buttons">
              <button type="button" class="danger" onClick={remove} disabled={busy}>
                {busy ? 'Removing…' : 'Remove'}
              </button>
              <button
                type="button"
                ref={keepRef}
                onClick={() => {
                  setConfirming(false);
                  requestAnimationFrame(() => removeRef.current?.focus());
                }}
              >
                Keep
              </button>
            </div>
          </div>
        ) : (
          <div class="row-actions">
            <label class="visually-hidden" for={`role-${person.id}`}>
              Role of {person.email}
            </label>
            <select
              id={`role-${person.id}`}
              value={role}
              onChange={(event) => setRole(event.currentTarget.value)}
            >
              {props.roleOptions.map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
            <button type="button" onClick={changeRole} disabled={busy || role === person.role}>
              Change role<span class="visually-hidden"> of {person.email}</span>
            </button>
            <button type="button" class="danger" ref={removeRef} onClick={() => setConfirming(true)}>
              Remove<span class="visually-hidden"> {person.email}</span>
            </button>
          </div>
        )}
      </td>
    </tr>
  );
}

function Invite(props: {
  roleOptions: readonly (readonly [string, string])[];
  onInvited(person: TeamMember): void;
}) {
  const [email, setEmail] = useState('');
  // The role that may do least, unless the inviter chooses another.
  const [role, setRole] = useState<string>(props.roleOptions[props.roleOptions.length - 1]?.[0] ?? '');
  const [emailError, setEmailError] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [invited, setInvited] = useState<{ person: TeamMember; link: string; expires_at: string }>();
  const emailRef = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    const typed = email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(typed)) {
      setEmailError('Enter the email address of the person to invite, like name@example.com.');
      emailRef.current?.focus();
      return;
    }
    setEmailError(undefined);
    setBusy(true);
    try {
      const answer = await call<{ person: TeamMember; link: string; expires_at: string }>(
        'POST',
        '/team/invites/',
        { email: typed, role },
      );
      setInvited(answer);
      setEmail('');
      props.onInvited(answer.person);
    } catch (error) {
      if (error instanceof ApiError && error.field('email')) {
        setEmailError(error.field('email'));
        emailRef.current?.focus();
      } else setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <p>They get a set-up link that works once, for 72 hours. Send it to them yourself.</p>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {invited ? (
        <OnceSecret id="invite-link" label={`Set-up link for ${invited.person.email}`} value={invited.link}>
          <p>
            It works once, until <When at={invited.expires_at} />.
          </p>
        </OnceSecret>
      ) : null}
      <form class="inline-form" onSubmit={submit} noValidate>
        <Field
          id="invite-email"
          label="Email"
          type="email"
          autocomplete="off"
          spellcheck={false}
          value={email}
          onValue={setEmail}
          error={emailError}
          inputRef={emailRef}
        />
        <Select id="invite-role" label="Role" value={role} options={props.roleOptions} onValue={setRole} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            {busy ? 'Inviting…' : 'Invite'}
          </button>
        </div>
      </form>
    </section>
  );
}
