#!/usr/bin/env node
// The propdesk-conformance command. The check itself is compiled TypeScript, dist/conformance/bin.js
// (npm run build, npm start and npm pack build it); this file is not, so that it is there when npm
// links the command, in a fresh checkout of the repository as in an installed package.
'use strict';
try {
  require.resolve('../dist/conformance/bin.js');
} catch {
  process.stderr.write('propdesk-conformance is not built yet: run npm run build (or npm start) in the repository first\n');
  process.exit(2);
}
require('../dist/conformance/bin.js');
