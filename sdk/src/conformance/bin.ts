#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { Runner, StepFailed } from './runner';
import { runScenario } from './scenario';

/**
 * npx propdesk-conformance --base-url URL --key pfx_test_... [--webhook-url URL] [--timeout SECONDS]
 *
 * Drives a test account on a test clock through SPEC 17's steps against a PropDesk server and
 * checks every answer against the server's OpenAPI document; with --webhook-url, that your
 * receiver acknowledged each event of the run. One line per step, then a summary. Exit 0 when
 * every step conforms, 1 at the first that does not, 2 for a usage error or a live key.
 */
const USAGE = 'usage: propdesk-conformance --base-url URL --key pfx_test_... [--webhook-url https://...] [--timeout SECONDS]\n' +
  '       (the key may come from PROPDESK_API_KEY instead of --key)\n';

async function main(): Promise<number> {
  let values: { 'base-url'?: string; key?: string; 'webhook-url'?: string; timeout?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { 'base-url': { type: 'string' }, key: { type: 'string' }, 'webhook-url': { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const baseUrl = values['base-url'];
  const apiKey = values.key ?? process.env.PROPDESK_API_KEY;
  const timeoutSeconds = values.timeout === undefined ? 60 : Number(values.timeout);
  if (!baseUrl || !apiKey || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (!apiKey.startsWith('pfx_test_')) {
    // The key itself is never printed.
    process.stderr.write('refusing to run with a live key: conformance drives test mode only; give it a pfx_test_ key\n');
    return 2;
  }
  const out = (text: string) => process.stdout.write(`${text}\n`);
  out(`propdesk-conformance: ${baseUrl}, test mode${values['webhook-url'] ? `, webhooks to ${values['webhook-url']}` : ''}`);
  const runner = new Runner({ line: out });
  try {
    await runScenario(runner, { baseUrl, apiKey, webhookUrl: values['webhook-url'], timeoutMs: timeoutSeconds * 1000 });
  } catch (err) {
    if (!(err instanceof StepFailed)) throw err;
    const passed = runner.results.filter((r) => r.ok).length;
    out(`does not conform: step "${err.step}" failed (${passed} step${passed === 1 ? '' : 's'} conformed before it)`);
    return 1;
  }
  out(`conforms: all ${runner.results.length} steps`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`propdesk-conformance failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
