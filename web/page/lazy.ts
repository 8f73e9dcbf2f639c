import { useEffect, useState } from 'preact/hooks';

/** A part of the page loaded when first needed, once; a failed load is tried again on the next call. */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

export const PART_FAILED = 'This part of the page could not load. Check your connection and try again.';

/** A part for a component: requested once `wanted` holds (`failed` if it cannot load), undefined until loaded. */
export function usePart<T>(load: () => Promise<T>, wanted: boolean, failed: () => void): T | undefined {
  const [part, setPart] = useState<T>();
  useEffect(() => {
    if (wanted) load().then(setPart, failed);
  }, [wanted]);
  return part;
}
