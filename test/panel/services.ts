import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@propdesk/kit';
import { createTestDatabase, type TestDatabase } from '@propdesk/kit/testing';
import { start as startAccounts } from '../../services/accounts/src/main';
import { start as startAuth } from '../../services/auth/src/main';
import { start as startPanel } from '../../services/panel/src/main';

/**
 * The real auth and accounts services (and optionally the panel) in-process on free ports,
 * against a fresh database. Used by the panel and CLI end-to-end tests.
 */
export interface TestServices {
  db: TestDatabase;
  /** What a client process needs to find the services (AUTH_GRPC_ADDRESS, ...). */
  clientEnv: Record<string, string>;
  panelUrl?: string;
  stop(): Promise<void>;
}

export const quietLogger = (name: string): Logger => createLogger(name, { level: process.env.TEST_LOG_LEVEL ?? 'silent' });

function loggerFor(name: string, logs: LogSink | undefined): Logger {
  return logs ? createLogger(name, { level: 'debug', destination: logs }) : quietLogger(name);
}

export interface LogSink {
  lines: string[];
  write(line: string): void;
}

/** Collects every log line written to it (pino destination). */
export function logSink(): LogSink {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line) };
}

export async function startServices(options: { panel?: boolean; env?: Record<string, string>; logs?: LogSink } = {}): Promise<TestServices> {
  const db = await createTestDatabase('pd_panel');
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn();
    await db.drop();
  };
  try {
    const base = {
      DATABASE_URL: db.url,
      CURSOR_SECRET: randomBytes(24).toString('hex'),
      GRPC_DEADLINE_MS: '5000',
      SIMULATE_MARKET: 'false',
      ...options.env,
    };
    const auth = await startAuth({ ...base, AUTH_GRPC_PORT: '0' }, { logger: loggerFor('auth', options.logs) });
    stops.push(() => auth.stop());
    const accounts = await startAccounts(
      { ...base, ACCOUNTS_GRPC_PORT: '0', AUTH_GRPC_ADDRESS: auth.address, CREDENTIALS_KEY: randomBytes(32).toString('hex') },
      { logger: loggerFor('accounts', options.logs) },
    );
    stops.push(() => accounts.stop());
    const clientEnv = { AUTH_GRPC_ADDRESS: auth.address, ACCOUNTS_GRPC_ADDRESS: accounts.address, GRPC_DEADLINE_MS: '5000' };
    let panelUrl: string | undefined;
    if (options.panel) {
      const panel = await startPanel({ ...clientEnv, PANEL_PORT: '0' }, { logger: loggerFor('panel', options.logs) });
      stops.push(() => panel.stop());
      panelUrl = panel.url;
    }
    return { db, clientEnv, panelUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
