/**
 * The parent's side of a server under test in a process of its own (../servers/server.ts): starts
 * it, asks it for its memory, for its held tasks and to release them, and stops it.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SERVER_ENV, type MemoryFigures, type ServerReply, type ServerRequest, type ServerSpec } from './wire.js';

const SCRIPT = new URL('../servers/server.js', import.meta.url);
const START_TIMEOUT_MS = 60_000;
const REPLY_TIMEOUT_MS = 120_000;
/** `/proc/<pid>/stat` counts CPU time in clock ticks: 100 a second on Linux (`getconf CLK_TCK`). */
const CLOCK_TICK_MICROS = 10_000;

/**
 * Node options for every server process, from `BENCH_SERVER_NODE_OPTIONS` (for example
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` or `--heap-prof`): profiles are written when the server stops.
 */
const extraNodeOptions = () => (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);

/** A server process that did not start, and why. */
export class ServerUnavailable {
  constructor(
    readonly label: string,
    readonly reason: string,
  ) {}
}

/** The last lines a server process wrote (stdout and stderr), and how many in all. */
class OutputTail {
  lines = 0;
  readonly last: string[] = [];

  constructor(child: ChildProcess) {
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        this.lines++;
        this.last.push(line);
        if (this.last.length > 20) this.last.shift();
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
  }
}

export class ServerProcess {
  private nextId = 0;
  private readonly pending = new Map<number, (reply: ServerReply) => void>();

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
    private readonly tail: OutputTail,
    readonly origin: string,
  ) {
    child.on('message', (reply: ServerReply) => {
      if ('id' in reply) {
        this.pending.get(reply.id)?.(reply);
        this.pending.delete(reply.id);
      }
    });
  }

  /**
   * Starts `spec` in a new process; resolves when it listens, or to why it could not start. `build`:
   * the root of another build (its `dist-bench/` built) whose server, and library, run instead of this one's.
   */
  static async start(label: string, spec: ServerSpec, build?: string): Promise<ServerProcess | ServerUnavailable> {
    const child = fork(build === undefined ? SCRIPT : pathToFileURL(join(build, 'dist-bench/servers/server.js')), [], {
      cwd: build,
      env: { ...process.env, [SERVER_ENV]: JSON.stringify(spec) },
      execArgv: ['--expose-gc', ...extraNodeOptions()],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const tail = new OutputTail(child);
    const first = await Promise.race([
      once(child, 'message').then(([reply]) => reply as ServerReply),
      once(child, 'exit').then(([code]) => ({ type: 'failed', reason: `exited with ${code} before listening${tail.last.length > 0 ? `: ${tail.last.at(-1)}` : ''}` }) as ServerReply),
      new Promise<ServerReply>((resolve) => setTimeout(() => resolve({ type: 'failed', reason: `not listening after ${START_TIMEOUT_MS} ms` }), START_TIMEOUT_MS).unref()),
    ]);
    if (first.type !== 'ready') {
      child.kill();
      return new ServerUnavailable(label, first.type === 'failed' ? first.reason : `answered ${first.type} first`);
    }
    return new ServerProcess(label, child, tail, first.origin);
  }

  /**
   * The CPU time (user + system, in µs) the server's process has used so far, read from
   * `/proc/<pid>/stat` (Linux; in clock ticks of 10 ms): it needs nothing of the server, so a build
   * of another commit can be measured too.
   */
  cpuMicros(): number {
    const fields = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MICROS;
  }

  /** The server's memory after full collections in it. */
  async memory(): Promise<MemoryFigures> {
    const reply = await this.ask({ type: 'memory', id: this.nextId++ });
    if (reply.type !== 'memory') throw new Error(`${this.label}: answered ${reply.type} to memory`);
    return reply.memory;
  }

  /** Resolves once at least `atLeast` `hold` tasks wait for {@link release}. */
  async held(atLeast: number): Promise<void> {
    await this.ask({ type: 'held', id: this.nextId++, atLeast });
  }

  /** Lets every held task go on. */
  async release(): Promise<void> {
    await this.ask({ type: 'release', id: this.nextId++ });
  }

  /** Lines the server wrote (its logger shows errors and warnings), and the last few of them. */
  output(): { lines: number; tail: readonly string[] } {
    return { lines: this.tail.lines, tail: this.tail.last };
  }

  /** Stops the server (gracefully: profiles asked for in BENCH_SERVER_NODE_OPTIONS are written). */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.send({ type: 'close' } satisfies ServerRequest);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  private ask(request: Exclude<ServerRequest, { type: 'close' }>): Promise<ServerReply> {
    const { id, type } = request;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.label}: no answer to ${type} in ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.child.send(request);
    });
  }
}
