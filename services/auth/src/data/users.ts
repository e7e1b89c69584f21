import { selectRows, type Sequelize } from '@propdesk/kit';

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
    async insert(input: { organizationId: string; email: string; passwordHash: string; role: UserRole }): Promise<UserRecord | undefined> {
      const [row] = await selectRows<UserRow>(
        sequelize,
        `INSERT INTO users (organization_id, email, email_normalized, password_hash, role)
         VALUES ($organizationId, $email, $email, $passwordHash, $role)
         ON CONFLICT (email_normalized) DO NOTHING RETURNING ${COLUMNS}`,
        input,
      );
      return row ? toUserRecord(row) : undefined;
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
