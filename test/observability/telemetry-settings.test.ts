/**
 * SPEC 16's switch, on a real process (the panel, which needs no database): without an OTLP
 * endpoint nothing of the SDK is loaded and nothing is exported; with the signal's own endpoint
 * and OTEL_EXPORTER_OTLP_PROTOCOL=http/json the spans arrive as JSON, under OTEL_SERVICE_NAME
 * when it is set; an OTLP protocol we cannot speak stops the process at boot.
 *
 * Port 19330 (the panel) is fixed, outside the ephemeral range.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT_CONFIG } from '@propdesk/kit';
import { REPOSITORY_ROOT as ROOT } from '@propdesk/kit/testing';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

jest.setTimeout(120_000);

const PANEL_PORT = 19330;
const ENTRY = path.join(ROOT, 'services/panel/dist/main.js');

let otlp: OtlpReceiver;
let scratch: string;

beforeAll(async () => {
  execFileSync('npx', ['tsc', '-b'], { cwd: ROOT, stdio: 'inherit' });
  otlp = await startOtlpReceiver();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-telemetry-'));
});

afterAll(async () => {
  await otlp?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

interface Panel {
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/** The panel as its Deployment runs it, with only the variables given (and PATH). */
async function startPanel(env: Record<string, string>): Promise<Panel> {
  const child = spawn(process.execPath, [ENTRY], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PANEL_PORT: String(PANEL_PORT), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve) => {
    const check = () => (output.includes('panel listening') || child.exitCode !== null ? resolve() : setTimeout(check, 50));
    check();
  });
  return {
    child,
    output: () => output,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function request(pathname: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${PANEL_PORT}${pathname}`)).status;
}

it('without an OTLP endpoint, loads no part of the SDK, exports nothing and logs no trace ids', async () => {
  const modulesFile = path.join(scratch, 'modules.txt');
  // The other OTEL_* variables alone do not turn tracing on.
  const panel = await startPanel({
    NODE_OPTIONS: `--require ${path.join(__dirname, 'record-modules.cjs')}`,
    RECORD_MODULES_TO: modulesFile,
    OTEL_SERVICE_NAME: 'panel-without-endpoint',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  });
  expect(await request('/panel/api/me')).toBe(401);
  expect(await panel.stop()).toBe(0);

  const loaded = fs.readFileSync(modulesFile, 'utf8').split('\n');
  expect(loaded.some((m) => m.includes('/services/panel/dist/main.js'))).toBe(true);
  expect(loaded.filter((m) => /@opentelemetry\/(sdk-|instrumentation|exporter-|otlp-|resources|core)/.test(m))).toEqual([]);
  expect(otlp.spans.filter((s) => s.service === 'panel-without-endpoint')).toEqual([]);
  const lines = panel.output().split('\n').filter((l) => l.startsWith('{'));
  expect(lines.some((l) => l.includes('"path":"/panel/api/me"'))).toBe(true);
  expect(lines.filter((l) => l.includes('trace_id'))).toEqual([]);
});

it('with the signal\'s own endpoint and http/json, exports JSON under the component\'s name, or OTEL_SERVICE_NAME', async () => {
  const traced = await startPanel({
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.endpoint}/v1/traces`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  expect(await request('/panel/api/me')).toBe(401);
  // SIGTERM flushes what is batched before the process exits.
  expect(await traced.stop()).toBe(0);
  const server = otlp.spans.find((s) => s.service === 'propdesk-panel' && s.kind === SPAN_KIND.SERVER);
  expect(server?.attributes['url.path']).toBe('/panel/api/me');
  expect(otlp.encodings).toContain('application/json');
  const line = traced
    .output()
    .split('\n')
    .find((l) => l.includes('"path":"/panel/api/me"'));
  expect(JSON.parse(line!)).toMatchObject({ trace_id: server!.traceId });

  const renamed = await startPanel({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_SERVICE_NAME: 'panel-eu-1', OTEL_BSP_SCHEDULE_DELAY: '100' });
  expect(await request('/panel/api/me')).toBe(401);
  expect(await renamed.stop()).toBe(0);
  expect(otlp.spans.some((s) => s.service === 'panel-eu-1')).toBe(true);
});

it('refuses an OTLP protocol it does not speak at boot, naming the variable', async () => {
  const panel = await startPanel({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  // A configuration error's exit code (the kit's EXIT_CONFIG): a supervisor does not restart it.
  expect(await panel.stop()).toBe(EXIT_CONFIG);
  expect(panel.output()).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json/);
});
