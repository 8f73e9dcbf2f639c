import type { AuditEntry, Role } from './api.ts';
import { Pager, useCursorPages } from './paging.tsx';
import type { SectionProps } from './Shell.tsx';
import { Alert, roleName, TableWrap, useFocusOnMount, When } from './ui.tsx';

/** Who made a change: a person's email (and role), which token, the CLI, or rentpay itself. */
function who(actor: AuditEntry['actor']) {
  switch (actor.type) {
    case 'dashboard_user':
      return (
        <>
          {String(actor.email)}
          {actor.role ? <span class="hint block">{roleName(actor.role as Role)}</span> : null}
        </>
      );
    case 'server_token':
      return (
        <>
          Server token
          {actor.token_id ? <span class="mono hint block">{String(actor.token_id)}</span> : null}
        </>
      );
    case 'operator_token':
      return actor.via === 'cli' ? 'Operator token (CLI)' : 'Operator token';
    case 'cli':
      return `Command line${actor.os_user ? ` (${String(actor.os_user)})` : ''}`;
    case 'system':
      return 'rentpay';
    default:
      return actor.type;
  }
}

/** The audit log (admins, operator staff), newest first, a page at a time. */
export function AuditLog(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const pages = useCursorPages<AuditEntry>('/audit-log/', {}, (entry) => entry.audit_entry_id);
  const { page, problem, loading, captionRef } = pages;

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Audit log
      </h1>
      <p>
        Every change to your team, credentials and settings, whoever made it and from wherever; newest first.
      </p>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {!page ? (
        problem ? null : (
          <p role="status">Loading…</p>
        )
      ) : page.data.length === 0 ? (
        <p>Nothing has been recorded yet.</p>
      ) : (
        <TableWrap label="Audit log entries">
          <table aria-busy={loading}>
            <caption ref={captionRef} tabIndex={-1}>
              Page {page.index + 1}
              {page.index === 0 ? ', newest entries' : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((entry) => (
                <tr key={entry.audit_entry_id}>
                  <td>
                    <When at={entry.created_at} />
                  </td>
                  <td class="break">{who(entry.actor)}</td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td class="break">
                    {entry.target.type.replace(/_/g, ' ')}{' '}
                    <span class="mono hint block">{entry.target.id}</span>
                  </td>
                  <td class="mono">{entry.address ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager pages={pages} label="Audit log pages" />
    </>
  );
}
