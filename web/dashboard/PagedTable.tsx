import type { ComponentChildren, VNode } from 'preact';
import { type CursorPages, Pager } from './paging.tsx';
import { Alert, TableWrap } from './ui.tsx';

/**
 * A list the API gives a page at a time, as a table: loading, its problem, what to say when it is empty, the
 * caption (focused after a move to another page) and the Newer/Older buttons. Shared by the tenants and payouts.
 */
export function PagedTable<T>(props: {
  pages: CursorPages<T>;
  /** Names the scrolling region and the pager. */
  label: string;
  caption: string;
  empty: string;
  /** The header row's cells. */
  head: ComponentChildren;
  row(item: T): VNode;
}) {
  const { page, problem, loading, captionRef } = props.pages;
  return (
    <>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {!page ? (
        problem ? null : (
          <p role="status">Loading…</p>
        )
      ) : page.data.length === 0 ? (
        <p role="status">{props.empty}</p>
      ) : (
        <TableWrap label={props.label}>
          <table aria-busy={loading}>
            <caption ref={captionRef} tabIndex={-1}>
              {props.caption}, page {page.index + 1}
            </caption>
            <thead>
              <tr>{props.head}</tr>
            </thead>
            <tbody>{page.data.map(props.row)}</tbody>
          </table>
        </TableWrap>
      )}
      <Pager pages={props.pages} label={`Pages of ${props.label.toLowerCase()}`} />
    </>
  );
}
