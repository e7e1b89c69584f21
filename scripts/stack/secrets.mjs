// @ts-check
// The development secrets `npm start` makes once and keeps in its data directory, so that
// sealed cursors and encrypted credentials survive a restart.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const WANTED = ['CURSOR_SECRET', 'CREDENTIALS_KEY', 'WEBHOOK_SECRET_KEY'];

/**
 * Sets each secret in `env` unless it is set already, from `<dataDir>/secrets.json` (made on the
 * first start, readable by its owner only).
 * @param {string} dataDir
 * @param {NodeJS.ProcessEnv} env
 */
export function loadSecrets(dataDir, env) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const file = path.join(dataDir, 'secrets.json');
  /** @type {Record<string, string>} */
  let secrets = {};
  if (fs.existsSync(file)) secrets = JSON.parse(fs.readFileSync(file, 'utf8'));
  let changed = false;
  for (const name of WANTED) {
    if (!secrets[name]) { secrets[name] = randomBytes(32).toString('hex'); changed = true; }
    env[name] ??= secrets[name];
  }
  if (changed) fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
}
