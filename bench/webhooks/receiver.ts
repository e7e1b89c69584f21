import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateCertificate } from '@propdesk/kit/testing';

export interface Receipt {
  path: string;
  eventId: string;
  createdAt: number;
  receivedAt: number;
  /** Entries in webhook-signature: 2 while a rotation is in progress. */
  signatures: number;
}

export interface BenchReceiver {
  port: number;
  certFile: string;
  receipts: Receipt[];
  close(): Promise<void>;
}

/** A local HTTPS receiver answering 200 at once, with a throwaway self-signed certificate. */
export async function startBenchReceiver(): Promise<BenchReceiver> {
  const cert = generateCertificate();
  const receipts: Receipt[] = [];
  const server = createServer({ cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = Date.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        const signatures = String(req.headers['webhook-signature'] ?? '').split(' ').filter((s) => s !== '').length;
        receipts.push({ path: req.url ?? '/', eventId: body.id, createdAt: Date.parse(body.created_at), receivedAt, signatures });
      } catch {
        /* not an envelope */
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    certFile: cert.certFile,
    receipts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cert.remove();
    },
  };
}
