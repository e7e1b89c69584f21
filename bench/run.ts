/**
 * `npm run bench`: every benchmark in turn, each printing its figures and ratios against its
 * baseline. `npm run bench -- gateway accounts` runs a subset. The soak is not in the default set
 * (10 minutes): `npm run bench -- soak` (SOAK_MINUTES shortens it).
 */
import fs from 'node:fs';
import path from 'node:path';

const ALL = ['gateway', 'gateway-hops', 'gateway-tracing', 'accounts', 'limits', 'trading', 'programs', 'time-rules', 'clocks', 'webhooks', 'panel', 'audit'];

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length > 0 ? wanted : ALL;
  for (const name of names) {
    const file = path.join(__dirname, `${name}.js`);
    if (!fs.existsSync(file)) {
      if (fs.existsSync(path.join(__dirname, '..', `${name}.ts`))) {
        console.log(`\n== ${name}: not built (${file} missing)`);
      } else {
        console.log(`\n== ${name}: no such benchmark; the benchmarks: ${[...ALL, 'soak'].join(', ')}`);
        process.exitCode = 1;
      }
      continue;
    }
    console.log(`\n== ${name}`);
    const mod = (await import(file)) as { run: () => Promise<void> };
    const started = Date.now();
    try {
      await mod.run();
    } catch (err) {
      console.log(`${name} failed: ${err instanceof Error ? err.stack : String(err)}`);
      process.exitCode = 1;
    }
    console.log(`(${name} took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}

void main();
