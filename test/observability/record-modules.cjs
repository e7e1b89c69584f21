// Preloaded (--require) into a process under test: when it exits, writes the paths of every
// module it loaded to the file named by RECORD_MODULES_TO.
const fs = require('node:fs');

process.on('exit', () => {
  fs.writeFileSync(process.env.RECORD_MODULES_TO, Object.keys(require.cache).join('\n'));
});
