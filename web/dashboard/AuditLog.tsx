import { useEffect, useRef, useState } from 'preact/hooks';
import { type AuditEntry, call, type Page, type Role } from './api.ts';
import type { SectionProps } from './Shell.tsx';
import { Alert, messageOf, roleName, TableWrap, useFocusOnMount, When } from './ui.tsx';

const PAGE_SIZE = 25;

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
  // The cursor each page starts after: the first page has none.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  // The page shown, with its number: it changes once the next page has come, not when it is asked for.
  const [page, setPage] = useState<Page<AuditEntry> & { index: number }>();
  const [problem, setProblem] = useState<string>();
  const [loading, setLoading] = useState(false);
  const tableRef = useRef<HTMLTableCaptionElement>(null);
  const moved = useRef(false);

  useEffect(() => {
    setLoading(true);
    setProblem(undefined);
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    const index = cursors.length - 1;
    const after = cursors[index];
    if (after) query.set('starting_after', after);
    call<Page<AuditEntry>>('GET', `/audit-log/?${query}`)
      .then(
        (found) => {
          setPage({ ...found, index });
          if (moved.current) requestAnimationFrame(() => tableRef.current?.focus());
        },
        (error) => setProblem(messageOf(error)),
      )
      .finally(() => setLoading(false));
  }, [cursors]);

  const older = () => {
    const last = page?.data[page.data.length - 1];
    if (!last) return;
    moved.current = true;
    setCursors([...cursors, last.audit_entry_id]);
  };
  const newer = () => {
    moved.current = true;
    setCursors(cursors.slice(0, -1));
  };

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
            <caption ref={tableRef} tabIndex={-1}>
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
      {page && (page.index > 0 || page.has_more) ? (
        <nav class="pager buttons" aria-label="Audit log pages">
          <button type="button" onClick={newer} disabled={page.index === 0 || loading}>
            Newer
          </button>
          <button type="button" onClick={older} disabled={!page.has_more || loading}>
            Older
          </button>
        </nav>
      ) : null}
    </>
  );
}
