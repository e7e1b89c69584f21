/**
 * Throwaway certificates for tests, made with the openssl CLI in a temporary directory that
 * `remove()` deletes: a self-signed one for HTTPS receivers, and a small PKI for mTLS.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

export interface TestCertificate {
  dir: string;
  certFile: string;
  keyFile: string;
  remove(): void;
}

/** A self-signed certificate for localhost / 127.0.0.1 (trusted through WEBHOOK_CA_FILE, NODE_EXTRA_CA_CERTS...). */
export function generateCertificate(): TestCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-test-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  return { dir, certFile, keyFile, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface TestPki {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  remove(): void;
}

/**
 * A certificate authority for mTLS tests and one leaf certificate it signs (serverAuth and
 * clientAuth, for 127.0.0.1 and localhost) that every process uses.
 */
export function makeTestPki(name = 'propdesk-test'): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-mtls-'));
  const file = (f: string) => path.join(dir, f);
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', `/CN=${name} CA`);
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('tls.key'), '-out', file('tls.csr'), '-subj', `/CN=${name} service`);
  fs.writeFileSync(
    file('ext.cnf'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n',
  );
  openssl('x509', '-req', '-in', file('tls.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('tls.crt'), '-days', '1', '-extfile', file('ext.cnf'));
  return { dir, caFile: file('ca.pem'), certFile: file('tls.crt'), keyFile: file('tls.key'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
