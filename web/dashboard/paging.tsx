/**
 * Lists a page at a time with the API's cursors (`starting_after` the last id of a page, `has_more`): the hook that
 * loads the pages and the Newer/Older buttons. Going to another page moves focus to the table's caption.
 */

import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Page } from './api.ts';
import { messageOf } from './ui.tsx';

export interface ShownPage<T> extends Page<T> {
  /** Which page this is: 0 for the first. */
  index: number;
}

export interface CursorPages<T> {
  /** The page shown; it changes once the next page has come, not when it is asked for. */
  page: ShownPage<T> | undefined;
  problem: string | undefined;
  loading: boolean;
  older(): void;
  newer(): void;
  /** The caption of the page's table: focused after a move to another page. */
  captionRef: RefObject<HTMLTableCaptionElement | null>;
}

/**
 * The pages of the list at `path` (`/audit-log/`) with `query` (filters, without the cursor). A change of the
 * query starts again at the first page.
 */
export function useCursorPages<T>(
  path: string,
  query: Record<string, string | undefined>,
  idOf: (item: T) => string,
  pageSize = 25,
): CursorPages<T> {
  const filters = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])),
  ).toString();
  // The cursor each page starts after: the first page has none.
  const [cursors, setCursors] = useState<{ filters: string; after: (string | undefined)[] }>({
    filters,
    after: [undefined],
  });
  const [page, setPage] = useState<ShownPage<T>>();
  const [problem, setProblem] = useState<string>();
  const [loading, setLoading] = useState(false);
  const captionRef = useRef<HTMLTableCaptionElement>(null);
  const moved = useRef(false);

  if (cursors.filters !== filters) setCursors({ filters, after: [undefined] });

  useEffect(() => {
    if (cursors.filters !== filters) return;
    let current = true;
    setLoading(true);
    setProblem(undefined);
    const search = new URLSearchParams(filters);
    search.set('limit', String(pageSize));
    const index = cursors.after.length - 1;
    const after = cursors.after[index];
    if (after) search.set('starting_after', after);
    call<Page<T>>('GET', `${path}?${search}`)
      .then(
        (found) => {
          if (!current) return;
          setPage({ ...found, index });
          if (moved.current) requestAnimationFrame(() => captionRef.current?.focus());
        },
        (error) => current && setProblem(messageOf(error)),
      )
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
  }, [cursors, path]);

  return {
    page,
    problem,
    loading,
    captionRef,
    older: () => {
      const last = page?.data[page.data.length - 1];
      if (!last) return;
      moved.current = true;
      setCursors({ filters, after: [...cursors.after, idOf(last)] });
    },
    newer: () => {
      moved.current = true;
      setCursors({ filters, after: cursors.after.slice(0, -1) });
    },
  };
}

/** The Newer/Older buttons of a list, when it has more than one page. */
export function Pager<T>(props: { pages: CursorPages<T>; label: string; newer?: string; older?: string }) {
  const { page, loading, newer, older } = props.pages;
  if (!page || (page.index === 0 && !page.has_more)) return null;
  return (
    <nav class="pager buttons" aria-label={props.label}>
      <button type="button" onClick={newer} disabled={page.index === 0 || loading}>
        {props.newer ?? 'Newer'}
      </button>
      <button type="button" onClick={older} disabled={!page.has_more || loading}>
        {props.older ?? 'Older'}
      </button>
    </nav>
  );
}
