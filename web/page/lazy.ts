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
