import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { messageClassesOf } from './express-messages';

/** Serves `app` and records, per request, whether Express changed the request's and response's prototypes. */
async function serve(app: Express, classes: boolean) {
  const changed: boolean[] = [];
  const server = createServer(classes ? messageClassesOf(app) : {}, (req: IncomingMessage, res: ServerResponse) => {
    const before = [Object.getPrototypeOf(req), Object.getPrototypeOf(res)];
    app(req, res);
    changed.push(Object.getPrototypeOf(req) !== before[0] || Object.getPrototypeOf(res) !== before[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, changed, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function echoApp(): Express {
  const app = express();
  app.set('trust proxy', 'loopback');
  app.get('/echo/:id', (req, res) => {
    res.status(201).set('X-App', String(req.app === app && res.app === app)).json({ id: req.params.id, q: req.query.q, ip: req.ip, path: req.path, secure: req.secure });
  });
  return app;
}

describe('the HTTP server classes of an Express app', () => {
  it("give requests and responses Express's prototypes from birth, so Express reshapes none of them", async () => {
    const served = await serve(echoApp(), true);
    try {
      for (let i = 0; i < 3; i += 1) expect((await fetch(`${served.url}/echo/${i}`)).status).toBe(201);
      expect(served.changed).toEqual([false, false, false]);
    } finally {
      await served.close();
    }
  });

  it("(without them, Express sets every request's and response's prototype anew)", async () => {
    const served = await serve(echoApp(), false);
    try {
      expect((await fetch(`${served.url}/echo/1`)).status).toBe(201);
      expect(served.changed).toEqual([true]);
    } finally {
      await served.close();
    }
  });

  it("keep everything Express adds: the app, params, query, ip under trust proxy, status, headers and json", async () => {
    const served = await serve(echoApp(), true);
    try {
      const res = await fetch(`${served.url}/echo/7?q=x`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(res.status).toBe(201);
      expect(res.headers.get('x-app')).toBe('true');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ id: '7', q: 'x', ip: '203.0.113.9', path: '/echo/7', secure: false });
    } finally {
      await served.close();
    }
  });
});
