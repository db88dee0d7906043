/**
 * A redis-server of a test's own, on a free port of 127.0.0.1, for tests that stop or restart
 * Redis: the machine's Redis is never touched, and only this child process is ever killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Starts redis-server on `port`; with `dir`, durable (append-only file, fsync always) so a restart keeps the data. */
export async function startRedis(port: number, dir?: string): Promise<ChildProcess> {
  const persistence = dir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir] : ['--appendonly', 'no'];
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = createServer().listen(port, '127.0.0.1');
      probe.on('listening', () => probe.close(() => resolve(false)));
      probe.on('error', () => resolve(true)); // the port is taken: redis is up
    });
    if (up) return child;
    await sleep(50);
  }
  throw new Error('redis-server did not start');
}

export async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
