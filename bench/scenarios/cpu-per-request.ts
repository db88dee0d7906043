/**
 * The server's CPU per request, 10 in flight: the Message answer (SendMessage → Message, JSON-RPC and
 * REST), the task lifecycle and streaming (SendStreamingMessage, JSON-RPC, 4 events; the requests and checks of
 * `side-by-side`): ours on Express and Fastify, the SDK, the bare Nest ceilings (Message answer only),
 * and with `--base=<dir>` ours of another build (a worktree of another commit with its `dist-bench/`
 * built), so a change is judged against the build before it in the same sitting. `--requests=` picks
 * some of `jsonrpc`, `rest`, `lifecycle` (blocking SendMessage → the COMPLETED task), `streaming` (default: all). `load µs` is the load generator's own CPU
 * per request (this process: send, read, check): what it leaves of the 2 cores bounds the rates
 * `side-by-side` can show.
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
import { out, printColumns, type BenchConfig, type Scenario } from '../harness.js';
import { median } from '../support/figures.js';
import { LoadClient } from '../support/load.js';
import { ServerProcess, ServerUnavailable } from '../support/server-process.js';
import { ceilingStack, oursStack, PLATFORMS, SDK_STACK, type StackDef } from '../support/stacks.js';
import { lifecycleRequest, messageRequest, streamingRequest, type Platform, type WireRequest } from '../support/wire.js';

const IN_FLIGHT = 10;

/** What is measured: a kind of request, and whether the ceilings (a fixed Message answer) serve it. */
interface RequestKind {
  readonly name: string;
  readonly request: (seq: number) => WireRequest;
  readonly ceiling: boolean;
}

const KINDS: Readonly<Record<string, RequestKind>> = {
  jsonrpc: { name: 'Message, JSON-RPC', request: (seq) => messageRequest('jsonrpc', seq), ceiling: true },
  rest: { name: 'Message, REST', request: (seq) => messageRequest('rest', seq), ceiling: true },
  lifecycle: { name: 'task lifecycle', request: lifecycleRequest, ceiling: false },
  streaming: { name: 'streaming, 4 events', request: streamingRequest, ceiling: false },
};

interface Case {
  readonly label: string;
  /** The platform of ours and the ceilings; none for the SDK (its own Express app, the same in every comparison). */
  readonly platform?: Platform;
  readonly role: 'this' | 'base' | 'ceiling' | 'sdk';
  readonly server: ServerProcess;
  /** µs of server CPU per request, per round and kind of request. */
  readonly perRound: Map<RequestKind, number[]>;
  /** µs of the load generator's CPU (this process: sending, reading and checking) per request, per round and kind. */
  readonly loadPerRound: Map<RequestKind, number[]>;
}

const scenario: Scenario = {
  description: `server CPU per request: Message answer, task lifecycle, streaming (${IN_FLIGHT} in flight): this build's ours, the SDK and the ceilings, and another build's ours with --base=<dir>`,
  async run(config: BenchConfig) {
    const kinds = kindsOf(config.requests);
    const sittings: Case[][] = [];
    // every sitting starts its servers anew (in the other order each time): a process keeps its own speed for its life
    for (let s = 0; s < config.sittings; s++) sittings.push(await sitting(config, kinds, s % 2 === 1));
    print(sittings, kinds, config);
  },
};

function kindsOf(names: readonly string[] | undefined): RequestKind[] {
  if (names === undefined) return Object.values(KINDS);
  const unknown = names.filter((n) => !(n in KINDS));
  if (unknown.length > 0) throw new Error(`--requests: no ${unknown.join(', ')}; there are ${Object.keys(KINDS).join(', ')}`);
  return names.map((n) => KINDS[n]);
}

/** One sitting: the servers started, a warm-up round each, then `config.rounds` rounds, and the servers stopped. */
async function sitting(config: BenchConfig, kinds: readonly RequestKind[], baseFirst: boolean): Promise<Case[]> {
  const cases: Case[] = [];
  const client = new LoadClient();
  const withCeiling = kinds.some((k) => k.ceiling);
  try {
    for (const platform of PLATFORMS) {
      const ours = [() => start(oursStack(platform), 'this', kinds), ...(config.base === undefined ? [] : [() => start(oursStack(platform), 'base', kinds, config.base)])];
      for (const starting of baseFirst ? ours.reverse() : ours) cases.push(await starting());
      if (withCeiling) cases.push(await start(ceilingStack(platform), 'ceiling', kinds));
    }
    cases.push(await start(SDK_STACK, 'sdk', kinds));
    let seq = 0;
    const round = async (c: Case, kind: RequestKind, measured: boolean) => {
      const before = c.server.cpuMicros();
      const load = process.cpuUsage();
      const { ops } = await client.round(c.server.origin, kind.request, IN_FLIGHT, { ms: config.roundMs }, seq);
      const { user, system } = process.cpuUsage(load);
      seq += ops + 1;
      if (!measured) return;
      c.perRound.get(kind)!.push((c.server.cpuMicros() - before) / ops);
      c.loadPerRound.get(kind)!.push((user + system) / ops);
    };
    const serving = (kind: RequestKind, among: readonly Case[]) => among.filter((c) => c.perRound.has(kind));
    for (const kind of kinds) for (const c of serving(kind, cases)) await round(c, kind, false); // warm-up
    for (let r = 0; r < config.rounds; r++) {
      const order = r % 2 === 0 ? cases : [...cases].reverse();
      for (const kind of kinds) for (const c of serving(kind, order)) await round(c, kind, true);
    }
    return cases;
  } finally {
    await client.close();
    await Promise.all(cases.map((c) => c.server.close()));
  }
}

async function start(def: StackDef, role: Case['role'], kinds: readonly RequestKind[], build?: string): Promise<Case> {
  const label = role === 'base' ? `${def.label} (base)` : def.label;
  const server = await ServerProcess.start(label, def.spec, build);
  if (server instanceof ServerUnavailable) throw new Error(`${label} did not start: ${server.reason}`);
  const served = role === 'ceiling' ? kinds.filter((k) => k.ceiling) : kinds;
  return { label, platform: role === 'sdk' ? undefined : def.spec.platform, role, server, perRound: new Map(served.map((k) => [k, []])), loadPerRound: new Map(served.map((k) => [k, []])) };
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

function print(sittings: ReadonlyArray<readonly Case[]>, kinds: readonly RequestKind[], config: BenchConfig): void {
  const several = sittings.length > 1;
  out(
    `\nserver CPU per request, µs (user + system from /proc), ${sittings.length} sitting(s) of ${config.rounds} rounds of ${config.roundMs} ms; ` +
      `ratios: ${several ? "the median of the sittings' medians of the per-round ratios (each sitting's)" : 'the median of the per-round ratios (range)'}`,
  );
  const hasBase = sittings[0].some((o) => o.role === 'base');
  const rows = kinds.flatMap((kind) =>
    sittings[0]
      .filter((first) => first.perRound.has(kind))
      .map((first) => {
        // the same server in each sitting (their order differs: the two builds start in turn)
        const own = (cases: readonly Case[]) => cases.find((c) => c.label === first.label)!.perRound.get(kind)!;
        const all = sittings.flatMap(own);
        const load = sittings.flatMap((cases) => cases.find((c) => c.label === first.label)!.loadPerRound.get(kind)!);
        /** `first` against the server of `role` (on its platform, but for the SDK) in each sitting; `this row` is `a` when `invert`. */
        const vs = (role: Case['role'], invert: boolean) =>
          ratioText(
            sittings.map((cases) => {
              const other = cases.find((o) => o.role === role && (role === 'sdk' || o.platform === first.platform))!.perRound.get(kind)!;
              return invert ? ratios(other, own(cases)) : ratios(own(cases), other);
            }),
          );
        const ours = first.role === 'this' || first.role === 'base';
        return [
          first.label,
          kind.name,
          median(all).toFixed(1),
          `${Math.min(...all).toFixed(0)}–${Math.max(...all).toFixed(0)}`,
          first.role === 'this' && hasBase ? vs('base', false) : '—',
          ours && kind.ceiling ? vs('ceiling', true) : '—',
          ours ? vs('sdk', true) : '—',
          median(load).toFixed(1),
        ];
      }),
  );
  const header = ['case', 'request', 'µs median', 'min–max', 'this/base', 'ceiling/this row', 'SDK/this row', 'load µs'];
  printColumns(header, rows);
}

export default scenario;
