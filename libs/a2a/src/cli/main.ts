#!/usr/bin/env node
/** The `nestjs-a2a` command (see `cli.ts`). */
import { runCli } from './cli.js';

const controller = new AbortController();
// Ctrl-C ends the call in flight (a stream closes its connection); a second one exits at once
process.once('SIGINT', () => {
  controller.abort(new Error('interrupted'));
  process.once('SIGINT', () => process.exit(130));
});

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal });
process.exitCode = controller.signal.aborted ? 130 : code;
