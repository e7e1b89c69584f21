import { readFileSync } from 'node:fs';
import { AppError } from '@propdesk/kit';
import { modeFlag, optionalString, organizationId, type FlagValues } from '../flags';
import type { Command } from './command';

/** The program body of --json TEXT or --file PATH (the REST shape of POST /v1/programs). */
function programBody(values: FlagValues): Record<string, unknown> {
  const json = optionalString(values, 'json');
  const file = optionalString(values, 'file');
  if ((json === undefined) === (file === undefined)) throw new AppError('invalid_request', 'give the program as --json TEXT or --file PATH (one of them)', 'json');
  let text: string;
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new AppError('invalid_request', `--file ${file} cannot be read`, 'file');
    }
  } else {
    text = json as string;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request', `the program is not valid JSON`, file !== undefined ? 'file' : 'json');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AppError('invalid_request', 'the program must be a JSON object', file !== undefined ? 'file' : 'json');
  const name = optionalString(values, 'name');
  return name === undefined ? (parsed as Record<string, unknown>) : { ...(parsed as Record<string, unknown>), name };
}

/** Same path as POST /v1/programs: the accounts service validates and stores version 1. */
export const programsCreate: Command = {
  flags: { org: { type: 'string' }, json: { type: 'string' }, file: { type: 'string' }, name: { type: 'string' }, mode: { type: 'string' } },
  async run(values, clients) {
    const org = organizationId(values);
    const res = await clients.accounts().createProgram({ organizationId: org, mode: modeFlag(values), program: programBody(values) });
    return res.program ?? {};
  },
};
