import fs from 'node:fs';
import { credentials, ServerCredentials, type ChannelCredentials } from '@grpc/grpc-js';
import { ConfigError } from './config';

/**
 * Optional mutual TLS between the gateway, the panel and the services (GRPC_TLS_CA, GRPC_TLS_CERT,
 * GRPC_TLS_KEY: PEM files). With all three set, every gRPC server asks for and verifies a client
 * certificate signed by the CA, and every client presents its own and verifies the server's; a
 * peer without a valid certificate is refused during the handshake. None set: plaintext (the
 * local default). Some but not all set: a configuration error at boot.
 */
export interface GrpcTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export interface GrpcTlsSettings {
  GRPC_TLS_CA?: string;
  GRPC_TLS_CERT?: string;
  GRPC_TLS_KEY?: string;
}

export function loadGrpcTls(settings: GrpcTlsSettings): GrpcTls | undefined {
  const files = { GRPC_TLS_CA: settings.GRPC_TLS_CA, GRPC_TLS_CERT: settings.GRPC_TLS_CERT, GRPC_TLS_KEY: settings.GRPC_TLS_KEY };
  const set = Object.entries(files).filter(([, value]) => value !== undefined && value !== '');
  if (set.length === 0) return undefined;
  if (set.length < 3) {
    const missing = Object.entries(files).filter(([, value]) => value === undefined || value === '').map(([name]) => name);
    throw new ConfigError(`invalid configuration: ${missing.join(', ')}: must be set too (mTLS needs GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY)`);
  }
  const read = (name: keyof typeof files) => {
    try {
      return fs.readFileSync(files[name] as string);
    } catch (err) {
      throw new ConfigError(`invalid configuration: ${name}: cannot read ${files[name]} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  return { ca: read('GRPC_TLS_CA'), cert: read('GRPC_TLS_CERT'), key: read('GRPC_TLS_KEY') };
}

/** Server side: mTLS (client certificates required and checked) or plaintext. */
export function serverCredentialsOf(tls: GrpcTls | undefined): ServerCredentials {
  return tls ? ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true) : ServerCredentials.createInsecure();
}

/** Client side: present our certificate and check the server's against the CA, or plaintext. */
export function channelCredentialsOf(tls: GrpcTls | undefined): ChannelCredentials {
  return tls ? credentials.createSsl(tls.ca, tls.key, tls.cert) : credentials.createInsecure();
}
