import type { AuditEntry, Role } from './api.ts';
import { AuditFilters, scopeName, useIntegratorNames } from './operator/AuditFilters.tsx';
import type { ConsoleAuditEntry } from './operator/types.ts';
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

/**
 * The audit log, newest first, a page at a time: a platform's admins see their platform's; the operator's staff see
 * the whole log (every platform's and the operator's own), narrowed by the address's `integrator_id` and `action`.
 */
export function AuditLog(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const operator = props.me.person.integrator_id === null;
  const { query } = props.route;
  const filters = operator
    ? { integrator_id: query.get('integrator_id') ?? undefined, action: query.get('action') ?? undefined }
    : {};
  const pages = useCursorPages<ConsoleAuditEntry>(
    operator ? '/operator/audit-log/' : '/audit-log/',
    filters,
    (entry) => entry.audit_entry_id,
  );
  const { page, problem, loading, captionRef } = pages;
  const names = useIntegratorNames(operator);
  const filtered = Boolean(filters.integrator_id || filters.action);

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Audit log
      </h1>
      <p>
        {operator
          ? 'Every change on every platform and the operator’s own, whoever made it and from wherever; newest first.'
          : 'Every change to your team, credentials and settings, whoever made it and from wherever; newest first.'}
      </p>
      {operator ? (
        <AuditFilters names={names} integratorId={filters.integrator_id} action={filters.action} />
      ) : null}
      {problem ? <Alert focus>{problem}</Alert> : null}
      {!page ? (
        problem ? null : (
          <p role="status">Loading…</p>
        )
      ) : page.data.length === 0 ? (
        <p>{filtered ? 'No entry matches these filters.' : 'Nothing has been recorded yet.'}</p>
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
                {operator ? <th scope="col">Scope</th> : null}
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
                  {operator ? <td class="break">{scopeName(entry.scope, names)}</td> : null}
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
