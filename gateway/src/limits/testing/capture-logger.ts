import { createLogger, type Logger } from '@propdesk/kit';

export interface CapturedLog {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A real pino logger whose lines land in an array, so tests can count warnings. */
export function captureLogger(name = 'limits-test'): { logger: Logger; lines: CapturedLog[]; warnings(): CapturedLog[] } {
  const lines: CapturedLog[] = [];
  const logger = createLogger(name, {
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as CapturedLog) },
  });
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 40) };
}
