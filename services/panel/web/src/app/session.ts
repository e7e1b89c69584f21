import { useQuery } from '@tanstack/react-query';
import { ApiError, canManage, panelApi, queryKeys } from '../api/panel-api';
import type { Meta, User } from '../api/types';

/** The signed-in user, or null when there is no session (401). */
export function useSession() {
  return useQuery<User | null>({
    queryKey: queryKeys.me,
    queryFn: async () => {
      try {
        return (await panelApi.me()).user;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
  });
}

/** The signed-in user inside the signed-in pages (the layout renders them only with a user). */
export function useUser(): User {
  const { data } = useSession();
  if (!data) throw new Error('useUser outside a session');
  return data;
}

export function useCanManage(): boolean {
  return canManage(useUser().role);
}

const EMPTY_META: Meta = { event_types: [], scopes: [], account_statuses: ['active', 'passed', 'breached', 'archived'], roles: ['owner', 'admin', 'member'] };

/** The choices the server offers (event types, scopes, statuses, roles), fetched once. */
export function useMeta(): Meta {
  const { data } = useQuery({ queryKey: queryKeys.meta, queryFn: panelApi.meta, staleTime: Infinity });
  return data ?? EMPTY_META;
}
