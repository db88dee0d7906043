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
 *
 * A process keeps its own speed for its life (what V8 compiled and when, where its heap lies), which
 * interleaving cannot share out: `--sittings=N` starts every server anew N times (the two builds in
 * the other order each time) and gives the median of the sittings' ratios, and each of them.
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
    const sittings: Case[][] = [];
    // every sitting starts its servers anew (in the other order each time): a process keeps its own speed for its life
    for (let s = 0; s < config.sittings; s++) sittings.push(await sitting(config, s % 2 === 1));
    print(sittings, config);
  },
};

/** One sitting: the servers started, a warm-up round each, then `config.rounds` rounds, and the servers stopped. */
async function sitting(config: BenchConfig, baseFirst: boolean): Promise<Case[]> {
  const cases: Case[] = [];
  const client = new LoadClient();
  try {
    for (const platform of PLATFORMS) {
      const ours = [() => start(oursStack(platform), 'this'), ...(config.base === undefined ? [] : [() => start(oursStack(platform), 'base', config.base)])];
      for (const starting of baseFirst ? ours.reverse() : ours) cases.push(await starting());
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
    return cases;
  } finally {
    await client.close();
    await Promise.all(cases.map((c) => c.server.close()));
  }
}

async function start(def: StackDef, role: Case['role'], build?: string): Promise<Case> {
  const label = role === 'base' ? `${def.label} (base)` : def.label;
  const server = await ServerProcess.start(label, def.spec, build);
  if (server instanceof ServerUnavailable) throw new Error(`${label} did not start: ${server.reason}`);
  return { label, platform: def.spec.platform, role, server, perRound: new Map(BINDINGS.map((b) => [b, []])) };
}

/** The median of the per-round ratios `a / b`, and their range. */
function ratios(a: readonly number[], b: readonly number[]): { median: number; min: number; max: number } {
  const each = a.map((value, i) => value / b[i]);
  return { median: median(each), min: Math.min(...each), max: Math.max(...each) };
}

/**
 * One sitting: the median of its per-round ratios (their range); several: the median of the
 * sittings' medians, and each of them.
 */
function ratioText(perSitting: ReadonlyArray<{ median: number; min: number; max: number }>): string {
  if (perSitting.length === 1) return `${perSitting[0].median.toFixed(2)} (${perSitting[0].min.toFixed(2)}–${perSitting[0].max.toFixed(2)})`;
  return `${median(perSitting.map((r) => r.median)).toFixed(2)} (${perSitting.map((r) => r.median.toFixed(2)).join(', ')})`;
}

function print(sittings: ReadonlyArray<readonly Case[]>, config: BenchConfig): void {
  const several = sittings.length > 1;
  out(
    `\nserver CPU per Message answer, µs (user + system from /proc), ${sittings.length} sitting(s) of ${config.rounds} rounds of ${config.roundMs} ms; ` +
      `ratios: ${several ? "the median of the sittings' medians of the per-round ratios (each sitting's)" : 'the median of the per-round ratios (range)'}`,
  );
  const rows = sittings[0].flatMap((first) =>
    BINDINGS.map((binding) => {
      // the same server in each sitting (their order differs: the two builds start in turn)
      const own = (cases: readonly Case[]) => cases.find((c) => c.label === first.label)!.perRound.get(binding)!;
      const all = sittings.flatMap(own);
      const vs = (role: Case['role'], over: (mine: number[], other: number[]) => { median: number; min: number; max: number }) =>
        sittings.map((cases) => {
          const other = cases.find((o) => o.platform === first.platform && o.role === role)!.perRound.get(binding)!;
          return over(own(cases), other);
        });
      const hasBase = sittings[0].some((o) => o.role === 'base');
      return [
        first.label,
        binding === 'jsonrpc' ? 'JSON-RPC' : 'REST',
        median(all).toFixed(1),
        `${Math.min(...all).toFixed(0)}–${Math.max(...all).toFixed(0)}`,
        first.role === 'this' && hasBase ? ratioText(vs('base', (mine, base) => ratios(mine, base))) : '—',
        first.role !== 'ceiling' ? ratioText(vs('ceiling', (mine, ceiling) => ratios(ceiling, mine))) : '—',
      ];
    }),
  );
  const header = ['case', 'binding', 'µs median', 'min–max', 'this/base', 'ceiling/this row'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const line of [header, ...rows]) out(line.map((cell, i) => cell.padEnd(widths[i])).join('  '));
}

export default scenario;
