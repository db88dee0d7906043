/**
 * RSS after many completed tasks (issue 14): a fresh server's RSS at idle (after full collections,
 * in its own process, once {@link WARM_UP_TASKS} tasks have loaded and compiled the code), then `--tasks` blocking SendMessage lifecycles (JSON-RPC, 32 in flight, each
 * answer checked), then its RSS again. Ours keeps the default retention (`tasks.retentionMs` 1 h,
 * `tasks.maxTerminalTasks` 10,000, the byte budgets), so the growth is bounded whatever the count;
 * the SDK's in-memory store keeps every task, for reference (no goal is judged on it).
 *
 * Right after the load, RSS still holds the heap V8 grew to under it (pages of garbage it has not
 * given back yet; V8's memory reducer does within some seconds of quiet). That is printed, and the
 * goal is judged on the settled RSS: the lowest of readings {@link SETTLE_STEP_MS} apart over
 * {@link SETTLE_MS} of quiet, which is what the retained tasks cost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { out, reportGoal, type BenchConfig, type Scenario } from '../harness.js';
import { memoryGrowth } from '../support/figures.js';
import { LoadClient } from '../support/load.js';
import { ServerProcess, ServerUnavailable } from '../support/server-process.js';
import { mayBeUnavailable, oursStack, PLATFORMS, SDK_STACK, type StackDef } from '../support/stacks.js';
import { lifecycleRequest, type MemoryFigures } from '../support/wire.js';

const IN_FLIGHT = 32;
const SETTLE_STEP_MS = 2000;
const SETTLE_MS = 20_000;
/** Tasks run before idle is taken: the code they load and compile is not retention. */
const WARM_UP_TASKS = 1000;
const MB = 1024 * 1024;
const GOAL_MB = 60;

const scenario: Scenario = {
  description: 'RSS after N completed tasks with the default retention, against idle',
  async run(config: BenchConfig) {
    out(`\nRSS after ${config.tasks.toLocaleString('en-US')} completed tasks (blocking SendMessage, ${IN_FLIGHT} in flight), against idle, after full collections`);
    for (const def of [...PLATFORMS.map((p) => oursStack(p)), SDK_STACK]) await measure(def, config.tasks);
  },
};

async function measure(def: StackDef, tasks: number): Promise<void> {
  const goal = `${def.label}: RSS after ${tasks.toLocaleString('en-US')} completed tasks within ${GOAL_MB} MB of idle`;
  const judged = def !== SDK_STACK;
  const server = await ServerProcess.start(def.label, def.spec);
  if (server instanceof ServerUnavailable) {
    if (!mayBeUnavailable(def)) throw new Error(`${def.label} did not start: ${server.reason}`);
    out(`  ${def.label}: not available yet (did not start)`);
    reportGoal({ goal, measured: 'did not start', status: 'not available yet' });
    return;
  }
  const client = new LoadClient();
  try {
    const started = await server.memory();
    await client.round(server.origin, lifecycleRequest, IN_FLIGHT, { ops: WARM_UP_TASKS }, 0);
    const idle = await server.memory();
    const round = await client.round(server.origin, lifecycleRequest, IN_FLIGHT, { ops: tasks }, WARM_UP_TASKS);
    const after = await server.memory();
    const { settled, waitedMs } = await settle(server, after);
    const growth = (settled.rss - idle.rss) / MB;
    const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
    const plus = (bytes: number) => `${bytes >= 0 ? '+' : ''}${(bytes / MB).toFixed(1)} MB`;
    out(
      `  ${def.label}${judged ? '' : ' (reference: keeps every task)'}: ${mb(started.rss)} at start, idle ${mb(idle.rss)} after ${WARM_UP_TASKS} tasks; ` +
        `${Math.round(round.perSec).toLocaleString('en-US')} tasks/s\n` +
        `    right after: ${mb(after.rss)}, ${plus(after.rss - idle.rss)} RSS (${memoryGrowth(idle, after)})\n` +
        `    settled (lowest over ${SETTLE_MS / 1000} s of quiet, at ${(waitedMs / 1000).toFixed(0)} s): ${mb(settled.rss)}, ${plus(settled.rss - idle.rss)} RSS (${memoryGrowth(idle, settled)})`,
    );
    if (judged) reportGoal({ goal, measured: `${plus(settled.rss - idle.rss)} settled, ${plus(after.rss - idle.rss)} right after (goal ≤ ${GOAL_MB} MB)`, status: growth <= GOAL_MB ? 'MET' : 'NOT MET' });
  } finally {
    await client.close();
    await server.close();
  }
}

/** The lowest RSS of readings {@link SETTLE_STEP_MS} apart over {@link SETTLE_MS} of quiet, and when it was read. */
async function settle(server: ServerProcess, after: MemoryFigures): Promise<{ settled: MemoryFigures; waitedMs: number }> {
  let lowest = { settled: after, waitedMs: 0 };
  for (let waitedMs = SETTLE_STEP_MS; waitedMs <= SETTLE_MS; waitedMs += SETTLE_STEP_MS) {
    await sleep(SETTLE_STEP_MS);
    const now = await server.memory();
    if (now.rss < lowest.settled.rss) lowest = { settled: now, waitedMs };
  }
  return lowest;
}

export default scenario;
