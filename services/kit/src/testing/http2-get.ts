import type http2 from 'node:http2';

/** A GET on an HTTP/2 client session: the answer's body as text, or the stream's error. */
export function http2Get(session: http2.ClientHttp2Session, path = '/'): Promise<string> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => resolve(body));
    stream.on('error', reject);
    stream.end();
  });
}
