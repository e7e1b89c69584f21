import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError, queryKeys } from '../api/panel-api';

/**
 * Caching and retries for every page. A 4xx is an answer, not a glitch: never retried. A 401
 * anywhere means the session ended (signed out elsewhere, removed from the team): the session
 * query is refetched, and the app falls back to the sign-in page.
 */
export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error) => sessionLost(error) }),
    mutationCache: new MutationCache({ onError: (error) => sessionLost(error) }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      },
    },
  });
  function sessionLost(error: unknown): void {
    if (error instanceof ApiError && error.status === 401 && error.code !== 'invalid_credentials') {
      void client.invalidateQueries({ queryKey: queryKeys.me });
    }
  }
  return client;
}
