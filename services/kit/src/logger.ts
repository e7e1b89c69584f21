import pino, { type Logger } from 'pino';
import { currentContext } from './context';

export type { Logger };

/** Anything secret that may end up in a logged object. */
export const REDACT_PATHS = [
  'password',
  'token',
  'secret',
  'sessionToken',
  'session_token',
  '*.password',
  '*.token',
  '*.secret',
  '*.sessionToken',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
];

export interface LoggerOptions {
  level?: string;
  /** 1 = stdout (services), 2 = stderr (CLI). */
  fd?: 1 | 2;
  /** A custom destination (tests capture log lines with it). */
  destination?: pino.DestinationStream;
}

export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ fd: options.fd ?? 1, sync: false });
  return pino(
    {
      name,
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      mixin() {
        const ctx = currentContext();
        return ctx ? { requestId: ctx.requestId } : {};
      },
    },
    destination,
  );
}
