/**
 * The accounts service in a process of its own, as deployed (its RSS and CPU profile are its
 * alone), on free ports, with its Prometheus metrics. BENCH_CPU_PROF=<dir> writes its --cpu-prof
 * profile there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { metricValue } from '@propdesk/kit';
import { processCpuSeconds } from './cpu';
import { freePort, ROOT, SERVICE_NODE_FLAGS, serviceNodeOptions } from './stack';

const CPU_PROF = process.env.BENCH_CPU_PROF;

export interface Service {
  child: ChildProcess;
  address: string;
  metricsPort: number;
  rssBytes(): number;
  /** CPU seconds the service process has used (user + system). */
  cpuSeconds(): number;
  output(): string;
  stop(): Promise<void>;
}

/** `root`: the checkout whose built service runs (another one to compare with, e.g. BENCH_BASELINE_ROOT). */
export async function startService(env: Record<string, string>, root: string = ROOT): Promise<Service> {
  const grpcPort = await freePort();
  const metricsPort = await freePort();
  const flags = [...SERVICE_NODE_FLAGS];
  if (CPU_PROF) {
    fs.mkdirSync(CPU_PROF, { recursive: true });
    flags.push('--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`);
  }
  const child = spawn(process.execPath, [...flags, path.join(root, 'services/accounts/dist/main.js')], {
    env: {
      ...process.env,
      NODE_OPTIONS: serviceNodeOptions(process.env.NODE_OPTIONS),
      ACCOUNTS_GRPC_PORT: String(grpcPort),
      ACCOUNTS_METRICS_PORT: String(metricsPort),
      AUTH_GRPC_ADDRESS: '127.0.0.1:1',
      CURSOR_SECRET: randomBytes(16).toString('hex'),
      CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      // info: the line saying the gRPC server listens (the metrics endpoint comes up before it).
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  child.stderr?.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`accounts service exited:\n${out}`);
    if (Date.now() - started > 60_000) throw new Error(`accounts service did not start:\n${out}`);
    if (out.includes('accounts service listening')) break;
    await sleep(100);
  }
  return {
    child,
    address: `127.0.0.1:${grpcPort}`,
    metricsPort,
    rssBytes() {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`accounts service exited (${child.exitCode ?? child.signalCode}):\n${out}`);
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    cpuSeconds: () => processCpuSeconds(child.pid!),
    output: () => `(accounts service ${child.exitCode === null && child.signalCode === null ? 'running' : `exited: ${child.exitCode ?? child.signalCode}`})\n${out}`,
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

function metricsText(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`metrics ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

/** One metric of the service's /metrics (0 when absent). */
export async function metric(port: number, name: string): Promise<number> {
  return metricValue(await metricsText(port), name) ?? 0;
}
