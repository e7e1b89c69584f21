import type { Sequelize } from '@propdesk/kit';
import type { QueryResultRow } from 'pg';

interface PooledPgClient {
  query<R extends QueryResultRow>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

interface ConnectionManager {
  getConnection(options: { type: 'read' | 'write' }): Promise<PooledPgClient>;
  releaseConnection(connection: PooledPgClient): Promise<void>;
}

/**
 * Runs a named prepared statement on a connection of sequelize's pool: PostgreSQL parses and
 * plans it once per connection, and sequelize's query pipeline (rendering, result shaping) is
 * skipped. For the hottest read paths only; everything else goes through sequelize.query.
 */
export async function preparedRows<R extends QueryResultRow>(sequelize: Sequelize, name: string, text: string, values: unknown[]): Promise<R[]> {
  const manager = (sequelize as unknown as { connectionManager: ConnectionManager }).connectionManager;
  const connection = await manager.getConnection({ type: 'read' });
  try {
    const result = await connection.query<R>({ name, text, values });
    return result.rows;
  } finally {
    await manager.releaseConnection(connection);
  }
}
