import { useInfiniteQuery } from '@tanstack/react-query';
import type { Page } from '../api/types';

export interface PagedOptions<T> {
  /** False: a failed page is shown at once (e.g. a service that does not offer the list). */
  retry?: boolean;
  /** Poll while the items loaded so far call for it (milliseconds), or not (false). */
  pollWhile?: (items: T[]) => number | false;
}

/** A keyset-paged list: pages fetched by their opaque cursor, appended in order. */
export function usePaged<T, P extends Page<T> = Page<T>>(key: readonly unknown[], fetchPage: (cursor?: string) => Promise<P>, options: PagedOptions<T> = {}) {
  const { retry, pollWhile } = options;
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: P) => last.next_cursor ?? undefined,
    ...(retry === undefined ? {} : { retry }),
    ...(pollWhile ? { refetchInterval: (q: { state: { data?: { pages: P[] } } }) => pollWhile(q.state.data?.pages.flatMap((p) => p.data) ?? []) } : {}),
  });
  return { query, items: query.data?.pages.flatMap((p) => p.data) ?? [] };
}
