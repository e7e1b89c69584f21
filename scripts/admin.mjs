// `npm run --silent admin -- ...`: builds once if needed (output to stderr), then runs the admin CLI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const entry = path.join(root, 'services/admin-cli/dist/main.js');
if (!fs.existsSync(entry)) {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) {
    process.stdout.write(`${JSON.stringify({ error: { code: 'internal_error', message: 'build failed' } })}\n`);
    process.exit(1);
  }
}
const run = spawnSync(process.execPath, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
