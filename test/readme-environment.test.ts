import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { databasePoolSchema, retentionIntervalSchema, serviceAddressSchema, z } from '@propdesk/kit';
import { telemetryEnvSchema } from '@propdesk/kit/telemetry';
import { gatewayConfigSchema } from '../gateway/src/config';
import { accountsConfigSchema } from '../services/accounts/src/config';
import { authConfigSchema } from '../services/auth/src/config';
import { feedConfigSchema } from '../services/market-feed/src/main';
import { panelConfigSchema } from '../services/panel/src/config';
import { configSchema as webhooksConfigSchema } from '../services/webhooks/src/config';

/**
 * The README's environment table is the operator's whole list: every variable a config module
 * reads is in it, nothing else is (but what `npm start` itself and Node read), and a numeric
 * default written there is the schema's.
 */

const ROOT = path.resolve(__dirname, '..');

// The admin CLI is not among this project's references (test/tsconfig.json): loaded at run time, typed here.
const { cliConfigSchema } = require('../services/admin-cli/src/config') as { cliConfigSchema: z.AnyZodObject };

/** Every config module's schema, by the name its process passes to loadConfig. */
const CONFIG_SCHEMAS: Record<string, z.AnyZodObject> = {
  gatewayConfigSchema,
  authConfigSchema,
  accountsConfigSchema,
  configSchema: webhooksConfigSchema,
  panelConfigSchema,
  cliConfigSchema,
  feedConfigSchema,
};
/** Shared parts every schema above extends (kept here so a part no process reads still shows). */
const SHARED_SCHEMAS: z.AnyZodObject[] = [serviceAddressSchema, retentionIntervalSchema, databasePoolSchema, telemetryEnvSchema];

/** Read by `npm start` (scripts/stack.mjs) or by Node itself, not by a config module. */
const OUTSIDE_CONFIG = ['SIMULATE_MARKET', 'PROPDESK_DATA_DIR', 'NODE_EXTRA_CA_CERTS'];
/** Standard OpenTelemetry variables the SDK reads itself (telemetry/config.ts decides only on the exporter). */
const READ_BY_THE_SDK = ['OTEL_SERVICE_NAME', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_RESOURCE_ATTRIBUTES'];
/** Read by the code, not an operator's: the supervisor's pid it hands its children; Node's own options. */
const INTERNAL = ['PROPDESK_SUPERVISOR_PID', 'NODE_OPTIONS'];

function readmeRows(): Array<{ names: string[]; text: string }> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Environment'), readme.indexOf('\n## ', readme.indexOf('### Environment')));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const first = line.split(' | ')[0] ?? '';
      return { names: [...first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] as string), text: line };
    });
}

function sourceFiles(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'gen') continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) sourceFiles(full, found);
    else if (/\.(ts|mjs|cjs)$/.test(entry) && !/\.test\.ts$/.test(entry)) found.push(full);
  }
  return found;
}

const schemaVariables = () => new Set([...Object.values(CONFIG_SCHEMAS), ...SHARED_SCHEMAS].flatMap((schema) => Object.keys(schema.shape)));

describe("the README's environment table", () => {
  it('covers every config module: each process passes one of the schemas checked here to loadConfig', () => {
    const passed = new Set<string>();
    for (const file of [...sourceFiles(path.join(ROOT, 'services')), ...sourceFiles(path.join(ROOT, 'gateway'))]) {
      for (const match of readFileSync(file, 'utf8').matchAll(/loadConfig\((\w+)/g)) passed.add(match[1] as string);
    }
    passed.delete('schema'); // loadConfig's own definition
    expect([...passed].sort()).toEqual(Object.keys(CONFIG_SCHEMAS).sort());
  });

  it('names every variable the config modules read, and only those and what npm start and Node read', () => {
    const documented = readmeRows().flatMap((row) => row.names);
    expect(documented.length).toBe(new Set(documented).size);
    expect([...documented].sort()).toEqual([...schemaVariables(), ...OUTSIDE_CONFIG, ...READ_BY_THE_SDK].sort());
  });

  it("lists what npm start's scripts read from the environment", () => {
    const read = new Set<string>();
    for (const file of sourceFiles(path.join(ROOT, 'scripts'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]+)|process\.env\.([A-Z][A-Z0-9_]+)/g)) read.add((match[1] ?? match[2]) as string);
    }
    const documented = new Set(readmeRows().flatMap((row) => row.names));
    expect([...read].filter((name) => !documented.has(name) && !INTERNAL.includes(name))).toEqual([]);
  });

  it('writes the numeric defaults the schemas have', () => {
    const schemas = [...Object.values(CONFIG_SCHEMAS), ...SHARED_SCHEMAS];
    const wrong: string[] = [];
    for (const row of readmeRows()) {
      const text = row.text.replace(/(\d),(?=\d{3})/g, '$1');
      for (const name of row.names) {
        const field = schemas.map((schema) => schema.shape[name] as z.ZodTypeAny | undefined).find(Boolean);
        if (!(field instanceof z.ZodDefault)) continue;
        const value: unknown = field._def.defaultValue();
        if (typeof value === 'number' && !new RegExp(`\\b${value}\\b`).test(text)) wrong.push(`${name}: ${value}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names RATE_LIMIT_LOGIN_PER_MIN with its default', () => {
    expect(readmeRows().find((row) => row.names.includes('RATE_LIMIT_LOGIN_PER_MIN'))?.text).toContain('[20]');
  });
});
