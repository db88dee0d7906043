/**
 * Every span, attribute and metric name the library records, in one place (README, "Traces and
 * metrics", documents each). OpenTelemetry's semantic conventions where one exists (`rpc.*`,
 * `server.*`, `http.*`, `error.type`), the `a2a.` namespace for the rest.
 */

/** The instrumentation scope of every tracer and meter of the library. */
export const INSTRUMENTATION_SCOPE = 'nestjs-a2a';

/** The proto service every A2A operation belongs to (`rpc.service`; spans are named `{service}/{method}`). */
export const A2A_RPC_SERVICE = 'lf.a2a.v1.A2AService';
/** `rpc.system` of A2A calls, whatever their binding. */
export const A2A_RPC_SYSTEM = 'a2a';

export const SPAN = {
  /** One executor turn of a task. */
  turn: 'a2a.turn',
  /** One attempt of one push notification (its webhook POST). */
  pushDelivery: 'a2a.push.delivery',
  /** One tool call of a turn (`ctx.runTool`), a child of the turn's span. */
  toolCall: 'a2a.tool.call',
} as const;

export const ATTR = {
  rpcSystem: 'rpc.system',
  rpcService: 'rpc.service',
  rpcMethod: 'rpc.method',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  httpStatus: 'http.response.status_code',
  /** `JSONRPC` or `HTTP+JSON` (the card's `protocolBinding`). */
  binding: 'a2a.binding',
  /** `1.0`, or `0.3` for the older peers. */
  protocolVersion: 'a2a.protocol.version',
  /** The agent's name (the server's own agent; on a turn and a push delivery, the agent whose task it is). */
  agent: 'a2a.agent',
  taskId: 'a2a.task.id',
  contextId: 'a2a.context.id',
  /** The task's state when the operation, turn or stream ended (`TASK_STATE_COMPLETED` …). */
  taskState: 'a2a.task.state',
  /** Outbound: the peer's origin (`scheme://host:port`). */
  peer: 'a2a.peer',
  /** How a push delivery attempt ended: `delivered`, `retried`, `failed`, `disabled`, `dropped`. */
  pushOutcome: 'a2a.push.outcome',
  /** 1 for the first attempt of a push notification. */
  pushAttempt: 'a2a.push.attempt',
  /** A circuit breaker's state: `closed`, `open`, `half-open`, `isolated`. */
  breakerState: 'a2a.breaker.state',
  /** The tool a tool call ran (a peer tool's is `{peer}__{skill}`). */
  toolName: 'a2a.tool.name',
  /** A tool call's step in its turn, 1 for the first (as the wire shows it: `step 1/3`). */
  toolStep: 'a2a.tool.step',
} as const;

export const METRIC = {
  /** Histogram (s): inbound A2A operations, by method, binding, version, agent and `error.type`. */
  serverDuration: 'rpc.server.call.duration',
  /** UpDownCounter: SSE streams open now, by method and agent. */
  openStreams: 'a2a.server.open_streams',
  /** Counter: tasks that reached a final state, by agent and state. */
  tasksFinished: 'a2a.task.finished',
  /** Histogram (s): executor turns, by agent and the state the turn left the task in. */
  turnDuration: 'a2a.turn.duration',
  /** Counter: push delivery attempts, by outcome. */
  pushAttempts: 'a2a.push.attempts',
  /** Histogram: attempts a push notification took, by final outcome. */
  pushDeliveryAttempts: 'a2a.push.delivery.attempts',
  /** Histogram (s): from the event's enqueueing to its notification's final outcome. */
  pushDeliveryLag: 'a2a.push.delivery.lag',
  /** Histogram (s): outbound calls (A2AClient), by method, peer and `error.type`. */
  clientDuration: 'rpc.client.call.duration',
  /** Gauge: each peer's circuit breaker, 0 closed, 1 half-open, 2 open, 3 isolated. */
  breakerState: 'a2a.client.breaker.state',
} as const;

/** Buckets for durations in seconds (the semantic conventions' advice for `http.server.request.duration`, longer tail for turns). */
export const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120];
