/**
 * `nestjs-a2a/testing`: what tests of an app that uses nestjs-a2a need, as the library's own tests
 * use it. Real servers on 127.0.0.1 only, no mocks: a webhook receiver for push notifications, HTTP
 * servers that record every connection (to prove a refused URL was never dialled), a DNS stand-in
 * for egress policies, and small helpers for what a test cannot await.
 *
 * @module nestjs-a2a/testing
 */

// waiting and catching
export { waitUntil } from './testing/wait-until.js';
export { rejectionOf, thrown } from './testing/thrown.js';

// push notifications: a receiver that records every request and answers as a script says
export { startWebhookReceiver, type ReceivedNotification, type ReceiverReply, type ReceiverScript, type WebhookReceiver } from './testing/webhook-receiver.js';

// the egress (SSRF) policy: servers that record every connection, names that resolve as a table says
export { startHttpServer, startHttpsServer, startRawServer, type Handler, type LoopbackServer, type SeenRequest } from './testing/loopback-server.js';
export { selfSignedCert } from './testing/self-signed-cert.js';
export { NEVER, fakeLookup, type FakeAnswer, type FakeLookup } from './testing/fake-lookup.js';

// an app's agents called in process, without HTTP
export { InProcessA2A, type InProcessA2AOptions, type InProcessStreamEvent } from './testing/in-process-a2a.js';

// a task backend of your own (`taskBackend`), tested by the suites the module's own backends pass;
// they run in your own spec files, on jest's globals (jest, or vitest with globals: true)
export { describeTaskBackendContract, type TaskBackendContractOptions, type TaskBackendUnderTest } from './testing/task-backend.contract.js';
export { describeTaskStoreContract, type TaskStoreUnderTest } from './testing/task-store.contract.js';
export { describeEventLogContract, type EventLogUnderTest } from './testing/event-log.contract.js';
