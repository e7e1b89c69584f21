import { bufCurl } from '@propdesk/kit/testing';
import { startAuthForTest } from './test/harness';

// What proto/README.md promises an internal caller with no .proto files at hand.
describe('auth service through gRPC reflection (buf curl)', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;

  beforeAll(async () => {
    auth = await startAuthForTest();
  });
  afterAll(async () => {
    await auth.stop();
  });

  it('lists the auth service beside health', async () => {
    const result = await bufCurl(auth.service.address, '', ['--list-services']);
    expect(result.stdout.trim().split('\n').sort()).toEqual(['grpc.health.v1.Health', 'propdesk.auth.v1.AuthService']);
  });

  it('calls an RPC with JSON in and out', async () => {
    const created = await bufCurl(auth.service.address, 'propdesk.auth.v1.AuthService/CreateOrganization', [
      '-H',
      'x-request-id: reflection-test-1',
      '-d',
      '{"name":"Reflected Prop","credits":"3"}',
    ]);
    expect(created).toMatchObject({ exitCode: 0 });
    const { organization } = JSON.parse(created.stdout);
    expect(organization).toMatchObject({ name: 'Reflected Prop', credits: '3', planStatus: 'PLAN_STATUS_PAID' });
    const fetched = await bufCurl(auth.service.address, 'propdesk.auth.v1.AuthService/GetOrganization', ['-d', JSON.stringify({ organization_id: organization.id })]);
    expect(JSON.parse(fetched.stdout).organization.id).toBe(organization.id);
  });

  it('returns an error as a gRPC status with the API code and parameter in trailing metadata', async () => {
    const refused = await bufCurl(auth.service.address, 'propdesk.auth.v1.AuthService/CreateOrganization', ['-v', '-d', '{"name":""}']);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/Grpc-Status: 3\b/);
    expect(refused.stderr).toMatch(/X-Api-Code: invalid_request/);
    expect(refused.stderr).toMatch(/X-Api-Param: name/);
  });
});
