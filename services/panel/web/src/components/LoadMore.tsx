/** Keyset paging: the next page is appended; the button goes once the list is finished. */
export function LoadMore({ hasNextPage, isFetchingNextPage, fetchNextPage }: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }) {
  if (!hasNextPage) return null;
  return (
    <button type="button" className="secondary load-more" onClick={() => void fetchNextPage()} disabled={isFetchingNextPage}>
      {isFetchingNextPage ? 'Loading…' : 'Load more'}
    </button>
  );
}
