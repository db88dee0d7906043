/**
 * The demo as `npm start` runs it: built once per test run (several test files may ask at once:
 * one builds, under a lock, the others wait), then started in a child process on a free port.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitUntil } from 'nestjs-a2a/testing';
import { freePort } from './ports.js';

const ROOT = process.cwd();
const OUTPUTS = [join(ROOT, 'dist/main.js'), join(ROOT, 'libs/a2a/dist/index.js')];
const SOURCES = [join(ROOT, 'src'), join(ROOT, 'libs/a2a/src')];
const LOCK = join(tmpdir(), `nestjs-a2a-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
const STALE_LOCK_MS = 180_000;

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, (await stat(path)).mtimeMs);
  }
  return newest;
}

async function fresh(): Promise<boolean> {
  const built = await Promise.all(OUTPUTS.map((file) => stat(file).then((s) => s.mtimeMs, () => 0)));
  const sources = Math.max(...(await Promise.all(SOURCES.map(newestSource))));
  return Math.min(...built) > sources;
}

/** `npm run build`, unless the build is newer than every source. */
export async function ensureBuilt(): Promise<void> {
  for (;;) {
    try {
      await mkdir(LOCK);
      break;
    } catch {
      const since = await stat(LOCK).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (since > STALE_LOCK_MS) await rm(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (!(await fresh())) await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT });
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

export interface DemoProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Everything it wrote to stdout so far (Nest's log). */
  stdout(): string;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the built demo (`node dist/main.js`) with `env`, on a free port of 127.0.0.1, and waits until it answers. */
export async function spawnDemo(env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<DemoProcess> {
  await ensureBuilt();
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [...nodeArgs, 'dist/main.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', ...env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  const answers = () => fetch(`${url}/.well-known/agent-card.json`).then((res) => res.ok, () => false);
  await waitUntil(async () => gone || (await answers()), { attempts: 200, intervalMs: 100 });
  if (gone || !(await answers())) {
    child.kill('SIGKILL');
    throw new Error(`the demo did not start: ${stderr.slice(0, 2000)}`);
  }
  return {
    url,
    child,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    async stop(graceMs = 5000) {
      if (gone) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
