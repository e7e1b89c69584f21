import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateSdkSources, type GeneratedSources, type OpenApiDocument } from './generate';

/**
 * `node sdk/codegen/dist/cli.js <openapi.json> [--check]`: writes the SDK's generated sources
 * (sdk/src/__generated__, not committed) from the document, or with --check says which are stale
 * and exits 1. The root script `npm run gen:sdk`, run by every build (`npm run build:ts`), gives
 * it the served document.
 */
export const GENERATED_DIR = path.resolve(__dirname, '..', '..', 'src', '__generated__');

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const source = args.find((a) => !a.startsWith('--'));
  if (!source) {
    process.stderr.write('usage: node sdk/codegen/dist/cli.js <openapi.json> [--check]\n');
    return 2;
  }
  const sources = await generateSdkSources(JSON.parse(readFileSync(source, 'utf8')) as OpenApiDocument);
  const stale = (Object.keys(sources) as Array<keyof GeneratedSources>).filter((name) => read(path.join(GENERATED_DIR, name)) !== sources[name]);
  if (check) {
    if (stale.length === 0) return 0;
    process.stderr.write(`the SDK's generated types are stale (${stale.map((n) => `sdk/src/__generated__/${n}`).join(', ')}): run 'npm run gen:sdk'\n`);
    return 1;
  }
  mkdirSync(GENERATED_DIR, { recursive: true });
  for (const name of stale) writeFileSync(path.join(GENERATED_DIR, name), sources[name]);
  process.stdout.write(stale.length === 0 ? 'sdk/src/__generated__ is up to date\n' : `wrote ${stale.map((n) => `sdk/src/__generated__/${n}`).join(', ')}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
