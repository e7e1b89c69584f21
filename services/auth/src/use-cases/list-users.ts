import { AppError, isUuid, pageSize } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { UserRecord } from '../data/users';

interface Position {
  e: string;
}

/** The team of an organization, a keyset page in email order. */
export async function listUsers(
  deps: Pick<AuthDeps, 'users' | 'cursors'>,
  input: { organizationId: string; pageSize: number; pageToken: string },
): Promise<{ users: UserRecord[]; nextPageToken: string }> {
  const limit = pageSize(input.pageSize);
  const organizationId = (input.organizationId ?? '').toLowerCase();
  const scope = `users:${organizationId}`;
  let after = '';
  if (input.pageToken) {
    const position = deps.cursors.decode<Position>(scope, input.pageToken);
    if (typeof position?.e !== 'string' || position.e.length === 0) {
      throw new AppError('invalid_cursor', 'the cursor is not valid for this list', 'cursor');
    }
    after = position.e;
  }
  if (!isUuid(organizationId)) return { users: [], nextPageToken: '' };
  const rows = await deps.users.listPage(organizationId, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextPageToken = rows.length > limit && last ? deps.cursors.encode(scope, { e: last.emailNormalized } satisfies Position) : '';
  return { users: page.map(({ emailNormalized: _, ...user }) => user), nextPageToken };
}
