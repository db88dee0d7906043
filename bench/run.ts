/**
 * `npm run bench [-- <scenario>... --ops=N --warmup=N --concurrency=1,32 --rounds=N --round-ms=N --streams=N --tasks=N --sittings=N --base=DIR --requests=a,b]`: runs the named
 * scenarios, or all of them. A scenario is a file `bench/scenarios/<name>.ts` whose default export
 * is a `Scenario` (see ./harness.ts); adding the file is all it takes to add one.
 */
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { out, readConfig, reportedGoals, type Scenario } from './harness.js';

/** The sources name the scenarios (a stale compiled file of a removed scenario is not one). */
const SOURCES = new URL('../bench/scenarios/', import.meta.url);
const COMPILED = new URL('./scenarios/', import.meta.url);

async function main(args: string[]): Promise<void> {
  const config = readConfig(args);
  const available = readdirSync(fileURLToPath(SOURCES))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
  const wanted = args.filter((a) => !a.startsWith('--'));
  const unknown = wanted.filter((name) => !available.includes(name));
  if (unknown.length > 0) throw new Error(`no scenario named ${unknown.join(', ')}; there are: ${available.join(', ')}`);
  const names = wanted.length > 0 ? wanted : available;

  out(
    `nestjs-a2a benchmarks: node ${process.version}, ${machineLoad()}, ${config.ops} ops × ${config.rounds} rounds per case and level, ` +
      `warm-up ${config.warmup}, in flight ${config.concurrency.join(' and ')}; servers in processes of their own: ` +
      `${config.rounds} rounds of ${config.roundMs} ms, ${config.streams.toLocaleString('en-US')} open streams, ${config.tasks.toLocaleString('en-US')} tasks`,
  );
  const failed: string[] = [];
  for (const name of names) {
    // one broken scenario says so and the others still run: the run fails at its end
    try {
      const scenario = ((await import(new URL(`${name}.js`, COMPILED).href)) as { default: Scenario }).default;
      out(`\n== ${name}: ${scenario.description}`);
      await scenario.run(config);
    } catch (error) {
      failed.push(name);
      reportFailure(name, error);
    }
  }
  printGoals();
  if (failed.length > 0) {
    process.stderr.write(`\nbench failed: ${failed.join(', ')} (see above)\n`);
    process.exitCode = 1;
  }
  out(`\n(at the end: ${machineLoad()})`);
}

/** The machine's load, for reading the figures: other processes on the same cores move them. */
function machineLoad(): string {
  return `${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

/** The goal lines of every scenario that ran, together (issue 14, "The goal"). */
function printGoals(): void {
  const goals = reportedGoals();
  if (goals.length === 0) return;
  const count = (status: string) => goals.filter((g) => g.status === status).length;
  out(`\n== goals: ${count('MET')} met, ${count('NOT MET')} not met, ${count('not available yet')} not available yet`);
  const width = Math.max(...goals.map((g) => g.goal.length));
  for (const goal of goals) out(`${goal.status.padEnd(17)}  ${goal.goal.padEnd(width)}  ${goal.measured}`);
}

function reportFailure(what: string, error: unknown): void {
  process.stderr.write(`\n${what} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof Error && cause.stack) process.stderr.write(`${cause.stack}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  reportFailure('bench', error);
  process.exitCode = 1;
});
