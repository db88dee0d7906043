/**
 * The public surface is a reviewed decision: each entry point's runtime names, exactly. A name added
 * or dropped here is an API change (the types follow the same lists in the entry files).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import * as main from 'nestjs-a2a';
import * as client from 'nestjs-a2a/client';
import * as testing from 'nestjs-a2a/testing';

const names = (entry: object) => Object.keys(entry).sort();

describe('entry points', () => {
  it('nestjs-a2a: the module, decorators, executor API, errors and wire model', () => {
    expect(names(main)).toEqual(
      [
        // the module and its options
        'A2AModule',
        'A2A_OPTIONS',
        'InjectA2AOptions',
        // the push queue's name, for @InjectQueue and bull-board
        'A2A_PUSH_QUEUE_NAME',
        'A2AConfigurationError',
        'REDIS_FAIL_FAST_OPTIONS',
        // health (for @nestjs/terminus, loaded only when used)
        'A2AHealthIndicator',
        // agents, the executor API, security
        'A2AAgent',
        'TaskContext',
        'dataPart',
        'filePart',
        'textPart',
        'ToolCallEvents',
        'A2ACallerResolver',
        'ANONYMOUS_SUBJECT',
        'A2APublic',
        'A2A_PUBLIC',
        'A2ASecurity',
        'SecuritySchemes',
        // signed cards
        'CardSigningError',
        'publicJwks',
        'signAgentCard',
        // tasks: listeners, the backend contract and its implementations
        'TASK_EVENT_LISTENERS',
        'TaskBackend',
        'ConcurrentTaskUpdateError',
        'InMemoryTaskBackend',
        'LocalTaskCoordinator',
        'RedisTaskBackend',
        // push notifications
        'PushDeliveryEvents',
        'PushDeadLetters',
        'PushDeliveryAdmin',
        'NOTIFICATION_SIGNATURE_HEADER',
        'NOTIFICATION_TOKEN_HEADER',
        'REDACTED_SECRET',
        // the wire
        'PROTOCOL_BINDINGS',
        'PROTOCOL_VERSION',
        'ROLES',
        'TASK_STATES',
        'isInterruptedState',
        'isTerminalState',
        'EXTENSIONS_HEADER',
        'VERSION_HEADER',
        'A2A_JSON',
        'WELL_KNOWN_AGENT_CARD_PATH',
        'A2AError',
        'AgentNotFoundError',
        'ContentTypeNotSupportedError',
        'ExtendedAgentCardNotConfiguredError',
        'ExtensionSupportRequiredError',
        'InternalError',
        'InvalidAgentResponseError',
        'InvalidParamsError',
        'InvalidRequestError',
        'JsonParseError',
        'MethodNotAllowedError',
        'MethodNotFoundError',
        'PayloadTooLargeError',
        'PermissionDeniedError',
        'PushNotificationNotSupportedError',
        'ResourceExhaustedError',
        'TaskNotCancelableError',
        'TaskNotFoundError',
        'UnauthenticatedError',
        'UnavailableError',
        'UnsupportedMediaTypeError',
        'UnsupportedOperationError',
        'VersionNotSupportedError',
      ].sort(),
    );
  });

  it('nestjs-a2a/client: the client, the pool, PeerToolProvider, and what they throw', () => {
    expect(names(client)).toEqual(
      [
        'A2AClient',
        'A2AEventStream',
        'AgentCardResolver',
        'agentCardUrl',
        'A2ACircuitBreakers',
        'A2AClientError',
        'A2AHttpError',
        'A2ATimeoutError',
        'CircuitOpenError',
        'CredentialsWithheldError',
        'InvalidClientOptionsError',
        'NoCompatibleInterfaceError',
        'UnknownA2AError',
        'CardSignatureError',
        'DEFAULT_CARD_SIGNATURE_ALGORITHMS',
        'verifyAgentCard',
        'EgressPolicy',
        'EgressError',
        'EgressRefusedError',
        'EgressRequestError',
        'A2AClientPool',
        'InjectA2AClient',
        'getA2AClientToken',
        'APP_SCOPE',
        'PeerToolProvider',
        'PEER_TOOL_SEPARATOR',
        'peerToolName',
        'PeerToolError',
        'ToolApprovalDeniedError',
        'ToolInputError',
        'ToolNotGrantedError',
        'ToolTimeoutError',
        'ToolUnavailableError',
        'A2ACredentialStrategy',
        'ApiKeyCredentialStrategy',
        'BearerCredentialStrategy',
        'CredentialNotFoundError',
        'CredentialResolver',
        'EnvCredentialResolver',
        'credentialEnvName',
        'ApproveAllTools',
        'ToolApproval',
      ].sort(),
    );
  });

  it('nestjs-a2a/testing: real servers and helpers for tests of an app', () => {
    expect(names(testing)).toEqual(
      [
        'waitUntil',
        'rejectionOf',
        'thrown',
        'startWebhookReceiver',
        'startHttpServer',
        'startHttpsServer',
        'startRawServer',
        'selfSignedCert',
        'fakeLookup',
        'NEVER',
        'InProcessA2A',
        'describeTaskBackendContract',
        'describeTaskStoreContract',
        'describeEventLogContract',
      ].sort(),
    );
  });

  it('no name is exported by two entries (one class, one identity)', () => {
    const seen = [...names(main), ...names(client), ...names(testing)];
    expect(seen.filter((name, i) => seen.indexOf(name) !== i)).toEqual([]);
  });

  it('the package maps every entry, for import and for require (CommonJS apps load the ESM build)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../libs/a2a/package.json', import.meta.url), 'utf8')) as { exports: Record<string, Record<string, string>> };
    for (const [entry, dir] of [['./client', 'client'], ['./testing', 'testing']]) {
      expect(pkg.exports[entry]).toEqual({ types: `./dist/${dir}.d.ts`, import: `./dist/${dir}.js`, default: `./dist/${dir}.js` });
    }
  });
});
