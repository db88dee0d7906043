/**
 * Every injection token of the module, with the one-line helpers that inject the public ones. The
 * pluggable parts (`TaskStore`, `EventLog`, `PushConfigStore`, `CredentialResolver`, `ToolApproval`)
 * are their own tokens, beside their interfaces.
 */
import { Inject } from '@nestjs/common';

/** The validated options with every default filled in (`ResolvedA2AOptions`). @publicApi */
export const A2A_OPTIONS = Symbol('A2A:RESOLVED_OPTIONS');

/** Injects the module's validated options (`ResolvedA2AOptions`). @publicApi */
export const InjectA2AOptions = (): PropertyDecorator & ParameterDecorator => Inject(A2A_OPTIONS);

/**
 * The token of the injectable `A2AClient` of a configured peer, as `getQueueToken(name)` is for a
 * BullMQ queue: `app.get(getA2AClientToken('research'))`.
 * @publicApi
 */
export const getA2AClientToken = (peer: string): string => `A2A:CLIENT:${peer}`;

/** Injects the `A2AClient` of the configured peer named `peer`: `@InjectA2AClient('research') research: A2AClient`. @publicApi */
export const InjectA2AClient = (peer: string): PropertyDecorator & ParameterDecorator => Inject(getA2AClientToken(peer));

/** The resolved binding paths (fixed when the module is compiled: Nest routes are static). */
export const A2A_ROUTES = Symbol('A2A:ROUTES');

/** The host guards the module runs on every A2A route (besides the app's global guards). */
export const A2A_GUARDS = Symbol('A2A:GUARDS');

/** The module's Redis connection (`RedisConnection`), or undefined when tasks live in memory. */
export const A2A_REDIS = Symbol('A2A:REDIS');

/** The outcome of the options check (`CheckedA2AOptions`): the start-up check lists its problems with every other. */
export const A2A_OPTION_CHECK = Symbol('A2A:OPTION_CHECK');

/** The peer names whose `A2AClient` is injectable (`getA2AClientToken`). */
export const A2A_CLIENT_NAMES = Symbol('A2A:CLIENT_NAMES');

/** The resolved push options (`ResolvedPushOptions`), or undefined with push off. */
export const A2A_PUSH_OPTIONS = Symbol('A2A:PUSH_OPTIONS');

/**
 * The name of the BullMQ queue of push deliveries, registered through `@nestjs/bullmq` when push is
 * on: `@InjectQueue(A2A_PUSH_QUEUE_NAME) queue: Queue` in the app (to mount it in bull-board, or
 * listen to it). Its keys are `{queuePrefix}:a2a-push:*`.
 * @publicApi
 */
export const A2A_PUSH_QUEUE_NAME = 'a2a-push';

/** The module's view of the delivery queue (`PushDeliveryQueue`), provided with push on. */
export const A2A_PUSH_QUEUE = Symbol('A2A:PUSH_QUEUE');

/** The worker of the delivery queue (`PushDeliveryWorker`), or undefined with push off. */
export const A2A_PUSH_WORKER = Symbol('A2A:PUSH_WORKER');

/** The worker's processor (`WebhookDeliveryProcessor`), or undefined with push off. */
export const A2A_PUSH_PROCESSOR = Symbol('A2A:PUSH_PROCESSOR');

/** The notification signer (`NotificationSigner`), or undefined without `push.signing`. */
export const A2A_PUSH_SIGNER = Symbol('A2A:PUSH_SIGNER');

/** `(agent) => string`: the JWT issuer of an agent's notifications (its card URL). */
export const A2A_PUSH_ISSUER = Symbol('A2A:PUSH_ISSUER');
