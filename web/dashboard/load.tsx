/** A page that reads one answer: loaded when the page opens (or its path changes), again after a change. */

import { useEffect, useState } from 'preact/hooks';
import { call } from './api.ts';
import { Alert, messageOf } from './ui.tsx';

export interface Loaded<T> {
  data: T | undefined;
  problem: string | undefined;
  /** Replaces the answer with a newer one (a change's answer) without asking again. */
  set(data: T): void;
  reload(): void;
}

/** The answer of GET `path`; nothing is asked while `path` is undefined (a page that knows the answer would be 404). */
export function useLoaded<T>(path: string | undefined): Loaded<T> {
  const [data, setData] = useState<T>();
  const [problem, setProblem] = useState<string>();
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (path === undefined) return;
    let current = true;
    setProblem(undefined);
    call<T>('GET', path).then(
      (answer) => current && setData(answer),
      (error) => current && setProblem(messageOf(error)),
    );
    return () => {
      current = false;
    };
  }, [path, attempt]);
  return { data, problem, set: setData, reload: () => setAttempt((n) => n + 1) };
}

/** What a page shows until its answer has come: the problem, or that it is loading. */
export function Waiting(props: { loaded: Loaded<unknown>; what: string }) {
  if (props.loaded.problem) return <Alert focus>{props.loaded.problem}</Alert>;
  return <p role="status">Loading {props.what}…</p>;
}
