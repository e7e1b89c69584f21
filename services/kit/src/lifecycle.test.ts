import { Sequelize } from 'sequelize';
import { ConfigError } from './config';
import { startFailureReport } from './lifecycle';

/** The error a service's first statement meets on `url`, as the driver raises it. */
async function firstConnection(url: string): Promise<unknown> {
  const sequelize = new Sequelize(url, { logging: false, pool: { max: 1 } });
  try {
    await sequelize.authenticate();
    return undefined;
  } catch (err) {
    return err;
  } finally {
    await sequelize.close();
  }
}

describe('startFailureReport: what a service prints when its start fails', () => {
  test('PostgreSQL not listening: one line with DATABASE_URL host, port and database, never its password', async () => {
    const url = 'postgres://propdesk:s3cret-pass@127.0.0.1:1/propdesk';
    const report = startFailureReport(await firstConnection(url), { DATABASE_URL: url });
    expect(report).toBe('cannot connect to PostgreSQL at 127.0.0.1:1/propdesk (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:1');
  });

  test('a database that does not exist on a running PostgreSQL: the server says which', async () => {
    const url = 'postgres://postgres@127.0.0.1:5432/pd_no_such_database';
    const report = startFailureReport(await firstConnection(url), { DATABASE_URL: url });
    expect(report).toBe('cannot connect to PostgreSQL at 127.0.0.1:5432/pd_no_such_database (DATABASE_URL): database "pd_no_such_database" does not exist');
  });

  test('an error caused by a failed connection is reported as one', async () => {
    const url = 'postgres://127.0.0.1:1/propdesk';
    const wrapped = new Error('migration failed', { cause: await firstConnection(url) });
    expect(startFailureReport(wrapped, { DATABASE_URL: url })).toBe('cannot connect to PostgreSQL at 127.0.0.1:1/propdesk (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:1');
  });

  test('a config error prints its message; anything else stays whole, stack and all', () => {
    expect(startFailureReport(new ConfigError('CURSOR_SECRET: must be at least 16 characters'), {})).toBe('CURSOR_SECRET: must be at least 16 characters');
    const other = new TypeError('x is not a function');
    expect(startFailureReport(other, {})).toBe(other);
  });
});
