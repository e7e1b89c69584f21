import { AppError, randomString, sha256Hex } from '@propdesk/kit';
import type { AuthDeps } from '../deps';
import type { UserRecord } from '../data/users';
import { normalizeEmail } from '../domain/email';
import { MAX_PASSWORD_LENGTH, verifyPassword } from '../domain/password';

export const SESSION_TOKEN_PREFIX = 'pds_';

export interface LoginResult {
  sessionToken: string;
  expiresAt: Date;
  user: UserRecord;
}

const invalidCredentials = () => new AppError('invalid_credentials', 'invalid email or password');

/**
 * Wrong email and wrong password fail alike, after one scrypt either way. Attempts are counted
 * per email and per client IP across replicas (see data/login-attempts); over a limit the
 * password is not even checked.
 */
export async function login(
  deps: Pick<AuthDeps, 'config' | 'users' | 'sessions' | 'loginAttempts' | 'dummyPasswordHash'>,
  input: { email: string; password: string; clientIp: string },
): Promise<LoginResult> {
  // bounded, so that an attacker cannot store arbitrarily long strings in the attempts table
  const email = normalizeEmail(input.email ?? '').slice(0, 320);
  const clientIp = (input.clientIp ?? '').trim().slice(0, 64) || null;
  const { config } = deps;

  const attemptId = await deps.loginAttempts.record(email, clientIp);
  const recent = await deps.loginAttempts.countRecent(email, clientIp, config.LOGIN_FAILURE_WINDOW_SECONDS);
  if (recent.byEmail > config.LOGIN_MAX_FAILURES_PER_EMAIL || recent.byIp > config.LOGIN_MAX_FAILURES_PER_IP) {
    await deps.loginAttempts.forget(attemptId);
    throw new AppError('rate_limited', 'too many failed logins; try again later');
  }

  const found = email.length > 0 ? await deps.users.findByEmailWithHash(email) : undefined;
  const password = (input.password ?? '').slice(0, MAX_PASSWORD_LENGTH);
  const matches = await verifyPassword(password, found?.passwordHash ?? deps.dummyPasswordHash);
  if (!found || !matches) throw invalidCredentials();

  await deps.loginAttempts.forget(attemptId);
  await deps.loginAttempts.clearEmail(email);
  const sessionToken = SESSION_TOKEN_PREFIX + randomString(43);
  const expiresAt = await deps.sessions.insert({
    userId: found.user.id,
    tokenSha256: sha256Hex(sessionToken),
    ttlSeconds: config.SESSION_TTL_SECONDS,
  });
  return { sessionToken, expiresAt, user: found.user };
}
