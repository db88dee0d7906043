/**
 * One build's request handler in a process of its own, for `handler-path`: the bench app (the demo's
 * configuration: 0.3 served too, OpenTelemetry's metrics SDK recording) called in process through
 * `InProcessA2A`, no HTTP. It loads everything from the build at `BENCH_HANDLER_ROOT` (this one's, or
 * another commit's worktree with its `dist-bench/` built), runs a warm-up round and the measured
 * rounds of `BENCH_HANDLER_KIND`, and sends the parent µs per operation of each round.
 *
 * This folder is not `bench/scenarios/`, so `run.ts` does not take these files for scenarios.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { HANDLER_ENV, type HandlerKind, type HandlerReply } from './wire.js';

const IN_FLIGHT = 10;

interface InProcess {
  call(method: string, params: unknown): Promise<unknown>;
}

async function main(): Promise<void> {
  const root = process.env[HANDLER_ENV.root]!;
  const kind = process.env[HANDLER_ENV.kind] as HandlerKind;
  const rounds = Number(process.env[HANDLER_ENV.rounds]);
  const roundMs = Number(process.env[HANDLER_ENV.roundMs]);
  // the build's own copies: its library, Nest and OpenTelemetry, as its server would load them
  const fromRoot = createRequire(`${root}/dist-bench/run.js`);
  const load = (specifier: string) => import(pathToFileURL(fromRoot.resolve(specifier)).href);
  const { metrics } = await load('@opentelemetry/api');
  const { MeterProvider } = await load('@opentelemetry/sdk-metrics');
  const { PrometheusExporter } = await load('@opentelemetry/exporter-prometheus');
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] }));
  const { NestFactory } = await load('@nestjs/core');
  const { InProcessA2A } = await load('nestjs-a2a/testing');
  const bench = await import(pathToFileURL(`${root}/dist-bench/support/lifecycle.js`).href);
  const app = await NestFactory.createApplicationContext(bench.lifecycleModule(undefined, undefined, undefined, true), { logger: false, abortOnError: false });
  try {
    const a2a = InProcessA2A.of(app, { caller: { subject: 'bench' } }) as InProcess;
    let seq = 0;
    const operation = async () => {
      const input = kind === 'message' ? `${bench.MESSAGE_PREFIX}${seq++}` : `task ${seq++}`;
      const answer = (await a2a.call('SendMessage', bench.sendMessageParams(input))) as { message?: { parts?: Array<{ text?: string }> } };
      if (kind === 'lifecycle') return bench.checkSendMessageAnswer('handler-path', input, { result: answer });
      if (answer.message?.parts?.[0]?.text !== bench.answerTo(input)) throw new Error(`handler-path: unexpected answer ${JSON.stringify(answer).slice(0, 200)}`);
    };
    const round = async (): Promise<number> => {
      let ops = 0;
      const started = performance.now();
      const deadline = started + roundMs;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (performance.now() < deadline) {
            await operation();
            ops++;
          }
        }),
      );
      return ((performance.now() - started) * 1000) / ops;
    };
    await round(); // warm-up
    const perRound: number[] = [];
    for (let r = 0; r < rounds; r++) perRound.push(await round());
    process.send!({ perRound } satisfies HandlerReply);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.send!({ failed: error instanceof Error ? error.message : String(error) } satisfies HandlerReply);
  process.exitCode = 1;
});
