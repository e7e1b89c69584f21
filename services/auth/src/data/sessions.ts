import { affectedRows, deleteInBatches, execute, selectRows, type Sequelize } from '@propdesk/kit';
import { toUserRecord, type UserRecord, type UserRole } from './users';

export function createSessionsRepository(sequelize: Sequelize) {
  return {
    async insert(input: { userId: string; tokenSha256: string; ttlSeconds: number }): Promise<Date> {
      const [row] = await selectRows<{ expires_at: Date }>(
        sequelize,
        `INSERT INTO sessions (user_id, token_sha256, expires_at)
         VALUES ($userId, $tokenSha256, now() + make_interval(secs => $ttlSeconds)) RETURNING expires_at`,
        input,
      );
      return row.expires_at;
    },

    /** Only live sessions: an expired row is as good as absent (the maintenance job deletes it later). */
    async findLive(tokenSha256: string): Promise<{ user: UserRecord; expiresAt: Date } | undefined> {
      const [row] = await selectRows<{ id: string; organization_id: string; email: string; role: UserRole; created_at: Date; expires_at: Date }>(
        sequelize,
        `SELECT u.id, u.organization_id, u.email, u.role, u.created_at, s.expires_at
           FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE s.token_sha256 = $tokenSha256 AND s.expires_at > now()`,
        { tokenSha256 },
      );
      return row ? { user: toUserRecord(row), expiresAt: row.expires_at } : undefined;
    },

    async delete(tokenSha256: string): Promise<void> {
      await execute(sequelize, 'DELETE FROM sessions WHERE token_sha256 = $tokenSha256', { tokenSha256 });
    },

    /** Retention: sessions that expired before `cutoff` (a logout deletes its row at once). */
    purgeEndedBefore(cutoff: Date): Promise<number> {
      return deleteInBatches((batch) =>
        affectedRows(sequelize, 'DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at < $cutoff LIMIT $batch)', { cutoff, batch }),
      );
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
