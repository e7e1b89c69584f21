import { request } from 'node:http';
import { startHttpServer } from './http-server';

function get(address: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(`http://${address}${path}`, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the HTTP server', () => {
  it('listens on a free port and answers', async () => {
    const http = await startHttpServer((_req, res) => res.end('hello'), { host: '127.0.0.1', port: 0 });
    expect(http.port).toBeGreaterThan(0);
    expect(await get(http.address, '/')).toEqual({ status: 200, body: 'hello' });
    await http.close();
  });

  it('lets a request in flight finish when it closes', async () => {
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const http = await startHttpServer(
      (_req, res) => {
        arrived();
        setTimeout(() => res.end('late but whole'), 150);
      },
      { host: '127.0.0.1', port: 0 },
    );
    const pending = get(http.address, '/');
    await inFlight;
    await http.close();
    expect(await pending).toEqual({ status: 200, body: 'late but whole' });
  });

  it('cuts a request that outlasts the drain', async () => {
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const http = await startHttpServer(() => arrived(), { host: '127.0.0.1', port: 0, drainMs: 100 });
    const pending = get(http.address, '/');
    pending.catch(() => undefined);
    await inFlight;
    const started = Date.now();
    await http.close();
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(pending).rejects.toThrow();
  });

  it('fails to start on a port that is taken', async () => {
    const first = await startHttpServer((_req, res) => res.end(), { host: '127.0.0.1', port: 0 });
    await expect(startHttpServer((_req, res) => res.end(), { host: '127.0.0.1', port: first.port })).rejects.toThrow(/EADDRINUSE/);
    await first.close();
  });
});
