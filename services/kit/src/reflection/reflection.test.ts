import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { accountsv1, authv1, tradingv1, webhooksv1 } from '@propdesk/proto';
import { bufCurl } from '../testing';
import { startGrpcServer, type GrpcServiceRegistration, type StartedGrpcServer } from '../grpc-server';
import { createLogger } from '../logger';
import { contractsDirectory, DESCRIPTOR_SETS } from './reflection-service';

const logger = createLogger('reflection-test', { level: 'silent' });

// No handlers: every RPC answers UNIMPLEMENTED, which a client only gets to once reflection has
// described the method well enough for it to encode the request.
const COMMITTED: GrpcServiceRegistration[] = [
  { name: 'propdesk.auth.v1.AuthService', definition: authv1.AuthServiceService, implementation: {} },
  { name: 'propdesk.accounts.v1.AccountsService', definition: accountsv1.AccountsServiceService, implementation: {} },
  { name: 'propdesk.trading.v1.TradingService', definition: tradingv1.TradingServiceService, implementation: {} },
  { name: 'propdesk.webhooks.v1.WebhooksService', definition: webhooksv1.WebhooksServiceService, implementation: {} },
];

describe('gRPC server reflection, as a real client (buf curl) sees it', () => {
  let all: StartedGrpcServer;
  let authOnly: StartedGrpcServer;

  beforeAll(async () => {
    all = await startGrpcServer({ host: '127.0.0.1', port: 0, services: COMMITTED, logger });
    authOnly = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [COMMITTED[0]], logger });
  });
  afterAll(async () => {
    await all.shutdown(100);
    await authOnly.shutdown(100);
  });

  const listed = (stdout: string) => stdout.trim().split('\n').sort();

  it('lists the services a server registers, and health, over v1 and v1alpha', async () => {
    for (const protocol of ['grpc-v1', 'grpc-v1alpha']) {
      const result = await bufCurl(all.address, '', ['--list-services', '--reflect-protocol', protocol]);
      expect(result).toMatchObject({ exitCode: 0 });
      expect(listed(result.stdout)).toEqual([
        'grpc.health.v1.Health',
        'propdesk.accounts.v1.AccountsService',
        'propdesk.auth.v1.AuthService',
        'propdesk.trading.v1.TradingService',
        'propdesk.webhooks.v1.WebhooksService',
      ]);
    }
    const single = await bufCurl(authOnly.address, '', ['--list-services']);
    expect(listed(single.stdout)).toEqual(['grpc.health.v1.Health', 'propdesk.auth.v1.AuthService']);
  });

  it('calls the health check through reflection, Check and List alike', async () => {
    const check = await bufCurl(all.address, 'grpc.health.v1.Health/Check', ['-d', '{"service":"propdesk.auth.v1.AuthService"}']);
    expect(check).toMatchObject({ exitCode: 0 });
    expect(JSON.parse(check.stdout)).toEqual({ status: 'SERVING' });
    for (const protocol of ['grpc-v1', 'grpc-v1alpha']) {
      const list = await bufCurl(authOnly.address, 'grpc.health.v1.Health/List', ['-d', '{}', '--reflect-protocol', protocol]);
      expect(list).toMatchObject({ exitCode: 0 });
      expect(Object.keys(JSON.parse(list.stdout).statuses).sort()).toEqual(['', 'propdesk.auth.v1.AuthService']);
    }
  });

  it('describes every method of every committed service well enough to call it', async () => {
    const methods = await bufCurl(all.address, '', ['--list-methods']);
    expect(methods).toMatchObject({ exitCode: 0 });
    for (const svc of COMMITTED) {
      const described = listed(methods.stdout).filter((method) => method.startsWith(`${svc.name}/`));
      expect(described).toEqual(Object.values(svc.definition).map((m) => m.path.slice(1)).sort());
    }
    // Struct (a map), Timestamp (another file) and proto3 `optional` fields, all in one request.
    const call = await bufCurl(all.address, 'propdesk.accounts.v1.AccountsService/ListAccounts', [
      '-d',
      '{"organization_id":"org","assigned":true,"page_size":10}',
    ]);
    expect(call.exitCode).not.toBe(0);
    expect(call.stdout + call.stderr).toMatch(/unimplemented/i);
    // A message of another package's file (TradingService answers BreachAccount with accounts.v1's Account).
    const crossPackage = await bufCurl(all.address, 'propdesk.trading.v1.TradingService/BreachAccount', ['-d', '{"organization_id":"org","number":"1","reason":"r"}']);
    expect(crossPackage.exitCode).not.toBe(0);
    expect(crossPackage.stdout + crossPackage.stderr).toMatch(/unimplemented/i);
    // An enum of the common package's file, by name (the mode of SPEC 13).
    const mode = await bufCurl(all.address, 'propdesk.webhooks.v1.WebhooksService/ListEndpoints', ['-d', '{"organization_id":"org","mode":"MODE_TEST"}']);
    expect(mode.exitCode).not.toBe(0);
    expect(mode.stdout + mode.stderr).toMatch(/unimplemented/i);
  });

  it('does not describe a service the server does not register', async () => {
    const result = await bufCurl(authOnly.address, 'propdesk.webhooks.v1.WebhooksService/ListEndpoints', ['-d', '{}']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/failed to find service/);
  });

  it('refuses to start a service whose contract is not committed', async () => {
    const unknown = { ...COMMITTED[0], name: 'propdesk.nothing.v1.NothingService' };
    await expect(startGrpcServer({ host: '127.0.0.1', port: 0, services: [unknown], logger })).rejects.toThrow(/NothingService/);
  });

  it('describes every committed .proto file, built by npm run gen without a list to keep up to date', () => {
    const committed = readdirSync(path.join(contractsDirectory(), 'propdesk'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.proto'))
      .map((file) => path.join('propdesk', file));
    const built = fromBinary(FileDescriptorSetSchema, readFileSync(path.join(contractsDirectory(), DESCRIPTOR_SETS[0]))).file.map((f) => f.name);
    expect(committed).toEqual(expect.arrayContaining(['propdesk/auth/v1/auth_service.proto', 'propdesk/accounts/v1/accounts_service.proto']));
    expect(built.filter((name) => name.startsWith('propdesk/')).sort()).toEqual(committed.sort());
  });
});
