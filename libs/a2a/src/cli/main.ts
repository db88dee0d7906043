#!/usr/bin/env node
/** The `nestjs-a2a` command (see `cli.ts`). */
import { EXIT_CODES, runCli } from './cli.js';

const controller = new AbortController();
// Ctrl-C ends the call in flight (a stream closes its connection); a second one exits at once
process.once('SIGINT', () => {
  controller.abort(new Error('interrupted'));
  process.once('SIGINT', () => process.exit(EXIT_CODES.interrupted));
});

// The reader went away (`| head`): nothing more can be shown, so stop quietly, as Unix tools do,
// instead of dying of an unhandled EPIPE with a stack trace
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT_CODES.done);
  });
}

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal });
process.exitCode = controller.signal.aborted ? EXIT_CODES.interrupted : code;
