import { sha256Hex } from '@propdesk/kit';
import type { AuthDeps } from '../deps';

/** Idempotent: an unknown or already ended session is fine. */
export async function logout(deps: Pick<AuthDeps, 'sessions'>, sessionToken: string): Promise<void> {
  const token = sessionToken ?? '';
  if (token.length === 0 || token.length > 256) return;
  await deps.sessions.delete(sha256Hex(token));
}
