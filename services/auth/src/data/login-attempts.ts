import { execute, selectRows, type Sequelize } from '@propdesk/kit';

/**
 * Login attempts in PostgreSQL, so every auth replica counts the same failures. An attempt is
 * recorded before the password is checked and deleted again when it succeeds or is refused
 * unchecked: concurrent guesses see each other, so a burst cannot slip past the limit.
 */
export function createLoginAttemptsRepository(sequelize: Sequelize) {
  return {
    async record(emailNormalized: string, clientIp: string | null): Promise<string> {
      const [row] = await selectRows<{ id: string }>(
        sequelize,
        'INSERT INTO login_attempts (email_normalized, client_ip) VALUES ($emailNormalized, $clientIp) RETURNING id',
        { emailNormalized, clientIp },
      );
      return String(row.id);
    },

    /** Attempts in the sliding window, this one included. */
    async countRecent(emailNormalized: string, clientIp: string | null, windowSeconds: number): Promise<{ byEmail: number; byIp: number }> {
      const [row] = await selectRows<{ by_email: string; by_ip: string }>(
        sequelize,
        `SELECT
           (SELECT count(*) FROM login_attempts
             WHERE email_normalized = $emailNormalized AND attempted_at > now() - make_interval(secs => $windowSeconds)) AS by_email,
           (SELECT count(*) FROM login_attempts
             WHERE client_ip = $clientIp AND attempted_at > now() - make_interval(secs => $windowSeconds)) AS by_ip`,
        { emailNormalized, clientIp, windowSeconds },
      );
      return { byEmail: Number(row.by_email), byIp: clientIp === null ? 0 : Number(row.by_ip) };
    },

    async forget(id: string): Promise<void> {
      await execute(sequelize, 'DELETE FROM login_attempts WHERE id = $id', { id });
    },

    /** After a successful login the email's earlier failures no longer count; the IP's still do. */
    async clearEmail(emailNormalized: string): Promise<void> {
      await execute(sequelize, 'DELETE FROM login_attempts WHERE email_normalized = $emailNormalized', { emailNormalized });
    },

    async purgeOlderThan(windowSeconds: number): Promise<void> {
      await execute(sequelize, 'DELETE FROM login_attempts WHERE attempted_at <= now() - make_interval(secs => $windowSeconds)', { windowSeconds });
    },
  };
}

export type LoginAttemptsRepository = ReturnType<typeof createLoginAttemptsRepository>;
