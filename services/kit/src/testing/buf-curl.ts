import { execFile } from 'node:child_process';
import path from 'node:path';

export interface BufCurlResult {
  /** 0 on success; buf curl exits non-zero when the call fails or the schema cannot be resolved. */
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `buf curl` (the @bufbuild/buf dev dependency) against a plaintext gRPC server, resolving
 * the schema through server reflection only: tests use it as a real reflection client would.
 * `target` is a method ("grpc.health.v1.Health/Check"), a service, or '' for the server itself.
 */
export function bufCurl(address: string, target: string, args: string[] = [], timeoutMs = 20_000): Promise<BufCurlResult> {
  // Resolved on use: the binary is a dev dependency and is absent from production images.
  const buf = path.join(path.dirname(require.resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
  const url = `http://${address}${target ? `/${target}` : ''}`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [buf, 'curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args, url],
      { timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ exitCode: code, stdout, stderr });
      },
    );
  });
}
