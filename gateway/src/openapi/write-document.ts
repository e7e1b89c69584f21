import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../routes';

/**
 * Writes the document GET /v1/openapi.json serves to a file, for tools that read one (Spectral in
 * `npm run lint:openapi`, Prism, Portman): `node gateway/dist/openapi/write-document.js out.json`.
 */
const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: node gateway/dist/openapi/write-document.js <file.json>\n');
  process.exit(2);
}
mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
writeFileSync(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
