/** Injection tokens of push notifications (internal; the public ones sit beside their interfaces). */

/** The resolved push options (`ResolvedPushOptions`), or undefined with push off. */
export const A2A_PUSH_OPTIONS = Symbol('A2A:PUSH_OPTIONS');

/** The delivery queue (`PushDeliveryQueue`), or undefined with push off. */
export const A2A_PUSH_QUEUE = Symbol('A2A:PUSH_QUEUE');

/** The worker's processor (`WebhookDeliveryProcessor`), or undefined with push off. */
export const A2A_PUSH_PROCESSOR = Symbol('A2A:PUSH_PROCESSOR');

/** The notification signer (`NotificationSigner`), or undefined without `push.signing`. */
export const A2A_PUSH_SIGNER = Symbol('A2A:PUSH_SIGNER');

/** `(agent) => string`: the JWT issuer of an agent's notifications (its card URL). */
export const A2A_PUSH_ISSUER = Symbol('A2A:PUSH_ISSUER');
