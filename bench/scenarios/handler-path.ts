/**
 * The request handler's path in process, no HTTP: decode, metrics, the task engine, encode, as
 * `InProcessA2A` calls them, for a SendMessage answered with a Message and for the task lifecycle
 * (blocking SendMessage → COMPLETED), 10 in flight; with `--base=<dir>`, the same for another build.
 * Each build runs in a process of its own (./support/handler-worker.ts) with the demo's configuration
 * (0.3 served too, OpenTelemetry's metrics SDK recording), one after the other, in the other order in
 * every other sitting (`--sittings=N`): a process keeps its own speed for its life.
 *
 * Without HTTP, node's and the framework's work, and the load generator sharing the cores, a change to
 * the handler's path shows here at a few per cent where `cpu-per-request` cannot tell it from its
 * noise; but what a server spends on this path is about twice what it costs here (the rest of a
 * request's code runs in between, and the caches are colder), so judge a change's share here and
 * its effect on a server there.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { out, printColumns, type BenchConfig, type Scenario } from '../harness.js';
import { median } from '../support/figures.js';
import { HANDLER_ENV, type HandlerKind, type HandlerReply } from '../support/wire.js';

const WORKER = new URL('../support/handler-worker.js', import.meta.url);
/** This build's root: `dist-bench/` is one level below it. */
const THIS_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KINDS: ReadonlyArray<{ readonly kind: HandlerKind; readonly name: string }> = [
  { kind: 'message', name: 'SendMessage → Message' },
  { kind: 'lifecycle', name: 'task lifecycle' },
];

/** µs per operation of each round, for one build in one sitting. */
async function measure(root: string, kind: HandlerKind, config: BenchConfig): Promise<number[]> {
  if (!existsSync(join(root, 'dist-bench/support/lifecycle.js'))) {
    throw new Error(`${root} holds no built bench (dist-bench/support/lifecycle.js): run npm ci, npm run build and npx tsc -p bench/tsconfig.json there`);
  }
  const child = fork(WORKER, [], {
    cwd: root,
    env: { ...process.env, [HANDLER_ENV.root]: root, [HANDLER_ENV.kind]: kind, [HANDLER_ENV.rounds]: String(config.rounds), [HANDLER_ENV.roundMs]: String(config.roundMs) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
  const replied = once(child, 'message') as Promise<[HandlerReply]>;
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the handler worker of ${root} exited with ${code} before answering${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`);
  });
  const [reply] = await Promise.race([replied, exited]);
  await once(child, 'exit').catch(() => undefined);
  if ('failed' in reply) throw new Error(`the handler worker of ${root}: ${reply.failed}`);
  return reply.perRound;
}

const scenario: Scenario = {
  description: "the request handler's path in process, no HTTP (decode, metrics, engine, encode): µs per SendMessage, this build and --base",
  async run(config: BenchConfig) {
    const builds = [{ label: 'this build', root: THIS_ROOT }, ...(config.base === undefined ? [] : [{ label: `base (${config.base})`, root: config.base }])];
    out(`\nµs per operation in process, 10 in flight, ${config.sittings} sitting(s) of ${config.rounds} rounds of ${config.roundMs} ms per build; this/base: each sitting's ratio of medians`);
    const header = ['request', 'build', 'µs median', 'min–max', 'this/base'];
    const rows: string[][] = [];
    for (const { kind, name } of KINDS) {
      const perBuild = builds.map(() => [] as number[][]);
      for (let s = 0; s < config.sittings; s++) {
        const order = s % 2 === 1 ? [...builds.keys()].reverse() : [...builds.keys()];
        for (const b of order) perBuild[b].push(await measure(builds[b].root, kind, config));
      }
      const [own, base] = perBuild;
      const sittingRatios = base === undefined ? [] : own.map((rounds, s) => median(rounds) / median(base[s]));
      builds.forEach((build, b) => {
        const all = perBuild[b].flat();
        const ratioText = b === 0 && sittingRatios.length > 0 ? `${median(sittingRatios).toFixed(2)} (${sittingRatios.map((r) => r.toFixed(2)).join(', ')})` : '—';
        rows.push([name, build.label, median(all).toFixed(2), `${Math.min(...all).toFixed(2)}–${Math.max(...all).toFixed(2)}`, ratioText]);
      });
    }
    printColumns(header, rows);
  },
};

export default scenario;
