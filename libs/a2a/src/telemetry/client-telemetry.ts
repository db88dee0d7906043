/**
 * Outbound A2A calls (A2AClient): a CLIENT span per call, retries and a 0.3 fallback included (a
 * stream's lasts until it ends), `rpc.client.call.duration` by peer, and each peer's breaker state.
 */
import { context, createContextKey, type Attributes } from '@opentelemetry/api';
import { Observation, SpanKind, observing } from './observation.js';
import { instruments } from './telemetry-api.js';
import { A2A_RPC_SERVICE, A2A_RPC_SYSTEM, ATTR } from './telemetry-names.js';

/** Where the call in progress keeps its observation, for {@link annotateClientCall}. */
const CLIENT_CALL = createContextKey('nestjs-a2a client call');

export class ClientCallObservation {
  private peer: string;

  constructor(
    private readonly observation: Observation,
    private readonly method: string,
    peer: string,
  ) {
    this.peer = peer;
  }

  run<T>(fn: () => T): T {
    return context.with(this.observation.context.setValue(CLIENT_CALL, this), fn);
  }

  /** The interface the call goes to, once chosen (and again after a fallback to 0.3). */
  at(url: URL, binding: string, protocolVersion: string): void {
    this.peer = url.origin;
    const o = this.observation;
    o.set(ATTR.peer, this.peer);
    o.set(ATTR.serverAddress, url.hostname);
    o.set(ATTR.serverPort, Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
    o.set(ATTR.binding, binding);
    o.set(ATTR.protocolVersion, protocolVersion);
  }

  end(error?: unknown): void {
    const o = this.observation;
    const errorType = error === undefined ? undefined : o.fail(error);
    if (!o.end()) return;
    const attributes: Attributes = { [ATTR.rpcMethod]: this.method, [ATTR.peer]: this.peer };
    if (errorType !== undefined) attributes[ATTR.errorType] = errorType;
    o.meters?.clientDuration.record(o.seconds, attributes);
  }
}

/** Starts observing an outbound call to `peer` (an origin); `undefined` when nothing is recorded. */
export function startClientCall(method: string, peer: string): ClientCallObservation | undefined {
  if (!observing()) return undefined;
  const observation = new Observation(`${A2A_RPC_SERVICE}/${method}`, SpanKind.CLIENT, {
    [ATTR.rpcSystem]: A2A_RPC_SYSTEM,
    [ATTR.rpcService]: A2A_RPC_SERVICE,
    [ATTR.rpcMethod]: method,
    [ATTR.peer]: peer,
  });
  return new ClientCallObservation(observation, method, peer);
}

/** Runs one unary outbound call observed. */
export function observeClientCall<T>(method: string, peer: string, run: () => Promise<T>): Promise<T> {
  const call = startClientCall(method, peer);
  return call === undefined ? run() : observed(call, run);
}

async function observed<T>(call: ClientCallObservation, run: () => Promise<T>): Promise<T> {
  try {
    const value = await call.run(run);
    call.end();
    return value;
  } catch (error) {
    call.end(error);
    throw error;
  }
}

/** Tells the call in progress (if observed) which interface it goes to. */
export function annotateClientCall(url: URL, binding: string, protocolVersion: string): void {
  (context.active().getValue(CLIENT_CALL) as ClientCallObservation | undefined)?.at(url, binding, protocolVersion);
}

const BREAKER_STATES: Readonly<Record<string, number>> = { closed: 0, 'half-open': 1, open: 2, isolated: 3 };

/** Records the state `peer`'s circuit breaker is in now. */
export function recordBreakerState(peer: string, state: string): void {
  instruments()?.breakerState.record(BREAKER_STATES[state] ?? -1, { [ATTR.peer]: peer });
}
