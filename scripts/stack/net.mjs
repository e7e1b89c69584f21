// @ts-check
// Ports and readiness probes of the stack supervisor.
import net from 'node:net';

/** @returns {Promise<number>} a port nothing listens on now (the system picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/** @param {number} port @returns {Promise<boolean>} */
export function portIsFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** @param {string} url @returns {Promise<boolean>} true when a GET answers 2xx within a second. */
export function httpOk(url) {
  return fetch(url, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
}

/** @param {number} port @returns {Promise<boolean>} true when 127.0.0.1:port accepts a connection within a second. */
export function tcpOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => { socket.end(); resolve(true); });
    socket.on('error', () => resolve(false));
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
  });
}
