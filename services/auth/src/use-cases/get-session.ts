import { AppError, sha256Hex } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { UserRecord } from '../data/users';

export async function getSession(deps: Pick<AuthDeps, 'sessions'>, sessionToken: string): Promise<{ user: UserRecord; expiresAt: Date }> {
  const token = sessionToken ?? '';
  const session = token.length > 0 && token.length <= 256 ? await deps.sessions.findLive(sha256Hex(token)) : undefined;
  if (!session) throw new AppError('invalid_session', 'the session is not valid; log in again');
  return session;
}
