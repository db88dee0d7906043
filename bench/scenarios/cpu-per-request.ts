/**
 * The server's CPU per Message answer (SendMessage → Message, JSON-RPC and REST, 10 in flight): ours
 * on Express and Fastify, the bare Nest ceilings, and with `--base=<dir>` the same servers of another
 * build (a worktree of another commit with its `dist-bench/` built), so a change is judged against the
 * build before it in the same sitting.
 *
 * CPU time per request, not rate: on a machine other processes share, a round's rate swings with
 * their load far more than the CPU a request costs the server does. Each server's user + system time
 * is read from `/proc/<pid>/stat` around each of its rounds (Linux; 10 ms ticks, so rounds should
 * cost the server at least a second: `--round-ms`, default 2000). The servers take turns within a
 * round, in an order that flips every round, after a warm-up round each; a comparison is the median
 * of the per-round ratios (two servers of one round ran seconds apart), with their range.
 */
import { out, type BenchConfig, type Scenario } from '../harness.js';
import { median } from '../support/figures.js';
import { LoadClient } from '../support/load.js';
import { ServerProcess, ServerUnavailable } from '../support/server-process.js';
import { ceilingStack, oursStack, PLATFORMS, type StackDef } from '../support/stacks.js';
import { messageRequest, type Binding, type Platform } from '../support/wire.js';

const IN_FLIGHT = 10;
const BINDINGS: readonly Binding[] = ['jsonrpc', 'rest'];

interface Case {
  readonly label: string;
  readonly platform: Platform;
  readonly role: 'this' | 'base' | 'ceiling';
  readonly server: ServerProcess;
  /** µs of server CPU per request, per round and binding. */
  readonly perRound: Map<Binding, number[]>;
}

const scenario: Scenario = {
  description: `server CPU per Message answer (${IN_FLIGHT} in flight): this build's ours and ceilings, and another build's with --base=<dir>`,
  async run(config: BenchConfig) {
    const cases: Case[] = [];
    const client = new LoadClient();
    try {
      for (const platform of PLATFORMS) {
        cases.push(await start(oursStack(platform), 'this'));
        if (config.base !== undefined) cases.push(await start(oursStack(platform), 'base', config.base));
        cases.push(await start(ceilingStack(platform), 'ceiling'));
      }
      let seq = 0;
      const round = async (c: Case, binding: Binding) => {
        const before = c.server.cpuMicros();
        const { ops } = await client.round(c.server.origin, (s) => messageRequest(binding, s), IN_FLIGHT, { ms: config.roundMs }, seq);
        seq += ops + 1;
        return (c.server.cpuMicros() - before) / ops;
      };
      for (const binding of BINDINGS) for (const c of cases) await round(c, binding); // warm-up
      for (let r = 0; r < config.rounds; r++) {
        const order = r % 2 === 0 ? cases : [...cases].reverse();
        for (const binding of BINDINGS) for (const c of order) c.perRound.get(binding)!.push(await round(c, binding));
      }
      print(cases, config);
    } finally {
      await client.close();
      await Promise.all(cases.map((c) => c.server.close()));
    }
  },
};

async function start(def: StackDef, role: Case['role'], build?: string): Promise<Case> {
  const label = role === 'base' ? `${def.label} (base)` : def.label;
  const server = await ServerProcess.start(label, def.spec, build);
  if (server instanceof ServerUnavailable) throw new Error(`${label} did not start: ${server.reason}`);
  return { label, platform: def.spec.platform, role, server, perRound: new Map(BINDINGS.map((b) => [b, []])) };
}

/** The median of the per-round ratios `a / b`, and their range. */
function ratio(a: readonly number[], b: readonly number[]): string {
  const ratios = a.map((value, i) => value / b[i]);
  return `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
}

function print(cases: readonly Case[], config: BenchConfig): void {
  out(`\nserver CPU per Message answer, µs (user + system from /proc), ${config.rounds} rounds of ${config.roundMs} ms; ratios: median of the per-round ratios (range)`);
  const rows = cases.flatMap((c) =>
    BINDINGS.map((binding) => {
      const mine = c.perRound.get(binding)!;
      const of = (role: Case['role']) => cases.find((o) => o.platform === c.platform && o.role === role)?.perRound.get(binding);
      const base = of('base');
      const ceiling = of('ceiling');
      return [
        c.label,
        binding === 'jsonrpc' ? 'JSON-RPC' : 'REST',
        median(mine).toFixed(1),
        `${Math.min(...mine).toFixed(0)}–${Math.max(...mine).toFixed(0)}`,
        c.role === 'this' && base ? ratio(mine, base) : '—',
        c.role !== 'ceiling' && ceiling ? ratio(ceiling, mine) : '—',
      ];
    }),
  );
  const header = ['case', 'binding', 'µs median', 'min–max', 'this/base', 'ceiling/this row'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const line of [header, ...rows]) out(line.map((cell, i) => cell.padEnd(widths[i])).join('  '));
}

export default scenario;
