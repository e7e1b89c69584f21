#!/usr/bin/env node
import { API_KEY_SCOPES, AppError, CLI_ACTOR, ConfigError, createLogger, fromServiceError, loadConfig, newRequestId, runWithContext, tcpUnreachable } from '@propdesk/kit';
import { createClients, type Clients } from './clients';
import { accountsCreate, quotesPublish } from './commands/accounts';
import type { Command } from './commands/command';
import { programsCreate } from './commands/programs';
import { orgAddCredits, orgCreate, orgGet, orgSetCreditsThreshold, orgSetPlan } from './commands/organizations';
import { keyCreate, keyRevoke, keySetLimits, userCreate } from './commands/users-and-keys';
import { cliConfigSchema } from './config';
import { parseFlags } from './flags';

/** The binding commands of SPEC section 3 (key:set-limits from section 12), plus org:get, key:revoke and help. */
export const COMMANDS: Record<string, Command> = {
  'org:create': orgCreate,
  'org:set-plan': orgSetPlan,
  'org:add-credits': orgAddCredits,
  'org:get': orgGet,
  'org:set-credits-threshold': orgSetCreditsThreshold,
  'user:create': userCreate,
  'key:create': keyCreate,
  'key:revoke': keyRevoke,
  'key:set-limits': keySetLimits,
  'accounts:create': accountsCreate,
  'programs:create': programsCreate,
  'quotes:publish': quotesPublish,
};

const USAGE: Record<string, string> = {
  'org:create': '--name NAME [--unpaid] [--credits N]',
  'org:set-plan': '--org ID (--paid | --unpaid)',
  'org:add-credits': '--org ID --credits N',
  'org:get': '--org ID',
  'org:set-credits-threshold': '--org ID --threshold N',
  'user:create': '--org ID --email E --password P --role owner|admin|member',
  'key:create': `--org ID --name NAME [--scopes ${API_KEY_SCOPES.join(',')}] [--expires-in SECONDS]`,
  'key:revoke': '--org ID --id KEY_ID',
  'key:set-limits': '--key ID --read N --write N',
  'accounts:create': '--org ID --count 1..100 [--balance AMOUNT] [--program NAME]',
  'programs:create': "--org ID (--json '{\"name\": ..., \"initial_balance\": ..., \"phases\": [...]}' | --file PATH) [--name NAME]",
  'quotes:publish': '--symbol SYM --bid B --ask A',
};

export interface CliResult {
  output: object;
  exitCode: 0 | 1;
}

function errorOutput(err: AppError): CliResult {
  const { code, message, param } = err;
  return { output: { error: { code, message, ...(param ? { param } : {}) } }, exitCode: 1 };
}

/** True when something accepts a TCP connection at `address` (host:port) within a second. */
async function listening(address: string): Promise<boolean> {
  const cut = address.lastIndexOf(':');
  const port = Number(address.slice(cut + 1));
  if (cut <= 0 || !Number.isInteger(port)) return true;
  return (await tcpUnreachable(address.slice(0, cut), port, 1000)) === undefined;
}

/**
 * A command answered `unavailable`: when nothing listens where the CLI looks for a service it
 * called, the stack is not running (or runs elsewhere), which is said as such, naming the service,
 * its address and the variable that sets it, instead of a service's "try again".
 */
async function notRunning(clients: Clients): Promise<AppError | undefined> {
  for (const { service, address, variable } of clients.used()) {
    if (!(await listening(address))) {
      return new AppError('unavailable', `could not reach the ${service} service at ${address}: is PropDesk running? Start it with npm start, or set ${variable} to where it runs`);
    }
  }
  return undefined;
}

/** Runs one command; never throws: every failure becomes the {error} object and exit code 1. */
export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  let clients: Clients | undefined;
  try {
    const [name, ...rest] = argv;
    if (name === 'help' || name === '--help' || name === '-h') {
      return { output: { commands: Object.entries(USAGE).map(([command, flags]) => ({ command, flags })) }, exitCode: 0 };
    }
    const command = name === undefined ? undefined : COMMANDS[name];
    if (!command) {
      const what = name === undefined || name.startsWith('-') ? 'a command is required' : `unknown command "${name}"`;
      throw new AppError('invalid_request', `${what}; commands: ${Object.keys(COMMANDS).join(', ')}`, 'command');
    }
    const values = parseFlags(rest, command.flags);
    const cfg = loadConfig(cliConfigSchema, env, false);
    clients = createClients(cfg);
    // Every call the command makes says who acts: an operator at the CLI (the audit log's actor, SPEC 14).
    const connected = clients;
    return { output: await runWithContext({ requestId: newRequestId(), actor: CLI_ACTOR }, () => command.run(values, connected)), exitCode: 0 };
  } catch (err) {
    if (err instanceof ConfigError) return errorOutput(new AppError('invalid_request', err.message));
    const appError = fromServiceError(err);
    if (appError.code === 'unavailable' && clients) return errorOutput((await notRunning(clients)) ?? appError);
    if (appError.code === 'internal_error') {
      createLogger('admin-cli', { fd: 2, level: 'error' }).error({ err }, 'command failed');
    }
    return errorOutput(appError);
  } finally {
    clients?.close();
  }
}

if (require.main === module) {
  run(process.argv.slice(2), process.env).then(({ output, exitCode }) => {
    process.stdout.write(`${JSON.stringify(output)}\n`);
    process.exitCode = exitCode;
  });
}
