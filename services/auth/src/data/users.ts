import { selectOne, selectRows, type Sequelize, type Transaction } from '@propdesk/kit';

export type UserRole = 'owner' | 'admin' | 'member';

export interface UserRecord {
  id: string;
  organizationId: string;
  email: string;
  role: UserRole;
  createdAt: Date;
}

interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  role: UserRole;
  created_at: Date;
  password_hash?: string;
}

const COLUMNS = 'id, organization_id, email, role, created_at';

export function toUserRecord(row: UserRow): UserRecord {
  return { id: row.id, organizationId: row.organization_id, email: row.email, role: row.role, createdAt: row.created_at };
}

export function createUsersRepository(sequelize: Sequelize) {
  return {
    /** undefined when the normalized email is taken. */
    async insert(input: { organizationId: string; email: string; passwordHash: string; role: UserRole }, transaction?: Transaction): Promise<UserRecord | undefined> {
      const [row] = await selectRows<UserRow>(
        sequelize,
        `INSERT INTO users (organization_id, email, email_normalized, password_hash, role)
         VALUES ($organizationId, $email, $email, $passwordHash, $role)
         ON CONFLICT (email_normalized) DO NOTHING RETURNING ${COLUMNS}`,
        input,
        transaction,
      );
      return row ? toUserRecord(row) : undefined;
    },

    /** Keyset page in email order (emails are unique): users added while paging never repeat. */
    async listPage(organizationId: string, afterEmail: string, limit: number): Promise<Array<UserRecord & { emailNormalized: string }>> {
      const rows = await selectRows<UserRow & { email_normalized: string }>(
        sequelize,
        `SELECT ${COLUMNS}, email_normalized FROM users
          WHERE organization_id = $organizationId AND email_normalized > $afterEmail
          ORDER BY email_normalized LIMIT $limit`,
        { organizationId, afterEmail, limit },
      );
      return rows.map((row) => ({ ...toUserRecord(row), emailNormalized: row.email_normalized }));
    },

    /**
     * Takes the organization's row lock, so that two concurrent changes of owners are serialized
     * and the count of owners read next stays true until the transaction ends.
     */
    async lockOrganizationUsers(organizationId: string, transaction: Transaction): Promise<void> {
      await selectRows(sequelize, 'SELECT id FROM organizations WHERE id = $organizationId FOR UPDATE', { organizationId }, transaction);
    },

    async findInOrganization(organizationId: string, userId: string, transaction?: Transaction): Promise<UserRecord | undefined> {
      const row = await selectOne<UserRow>(
        sequelize,
        `SELECT ${COLUMNS} FROM users WHERE id = $userId AND organization_id = $organizationId`,
        { organizationId, userId },
        transaction,
      );
      return row ? toUserRecord(row) : undefined;
    },

    async countOwners(organizationId: string, transaction: Transaction): Promise<number> {
      const row = await selectOne<{ owners: string }>(
        sequelize,
        `SELECT count(*) AS owners FROM users WHERE organization_id = $organizationId AND role = 'owner'`,
        { organizationId },
        transaction,
      );
      return Number(row?.owners ?? 0);
    },

    async setRole(userId: string, role: UserRole, transaction: Transaction): Promise<UserRecord> {
      const [row] = await selectRows<UserRow>(sequelize, `UPDATE users SET role = $role WHERE id = $userId RETURNING ${COLUMNS}`, { userId, role }, transaction);
      return toUserRecord(row);
    },

    /** Sessions go with the user (ON DELETE CASCADE), so every one of them ends in this statement. */
    async delete(userId: string, transaction: Transaction): Promise<void> {
      await selectRows(sequelize, 'DELETE FROM users WHERE id = $userId RETURNING id', { userId }, transaction);
    },

    async findByEmailWithHash(emailNormalized: string): Promise<{ user: UserRecord; passwordHash: string } | undefined> {
      const [row] = await selectRows<UserRow & { password_hash: string }>(
        sequelize,
        `SELECT ${COLUMNS}, password_hash FROM users WHERE email_normalized = $emailNormalized`,
        { emailNormalized },
      );
      return row ? { user: toUserRecord(row), passwordHash: row.password_hash } : undefined;
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
