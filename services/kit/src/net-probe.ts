import net from 'node:net';

/**
 * Whether something accepts a TCP connection at host:port within `timeoutMs`: undefined when it
 * does, else why not (the connect's error code, e.g. ECONNREFUSED, or "no answer within N s").
 * For telling "nothing runs there" apart from a server's own answer (the admin CLI, the tests'
 * check of their servers).
 */
export function tcpUnreachable(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (reason: string | undefined) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}
