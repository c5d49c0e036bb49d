/**
 * The `svc` command line: `npm run svc --silent -- <command> [options]`. Every command accepts --json and
 * then prints exactly one JSON value. Run with --help (or `help`) for the list.
 *
 * This file is the process (the `svc` script, the bundle of dist/server/main.js): it runs `runCli`
 * (run.ts) on the process's arguments and streams and exits with its code.
 */
import { runCli } from './run.ts';

runCli(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  },
);
