/** Enums and state classes of the wire model (spec digest §0.2). */
import { describe, expect, it } from '@jest/globals';
import { PROTOCOL_BINDINGS, PROTOCOL_VERSION, ROLES, TASK_STATES, isInterruptedState, isTerminalState, type TaskState } from './types.js';

describe('TaskState (digest §0.2)', () => {
  it.each<{ state: TaskState; number: number; terminal: boolean; interrupted: boolean }>([
    { state: 'TASK_STATE_UNSPECIFIED', number: 0, terminal: false, interrupted: false },
    { state: 'TASK_STATE_SUBMITTED', number: 1, terminal: false, interrupted: false },
    { state: 'TASK_STATE_WORKING', number: 2, terminal: false, interrupted: false },
    { state: 'TASK_STATE_COMPLETED', number: 3, terminal: true, interrupted: false },
    { state: 'TASK_STATE_FAILED', number: 4, terminal: true, interrupted: false },
    { state: 'TASK_STATE_CANCELED', number: 5, terminal: true, interrupted: false },
    { state: 'TASK_STATE_INPUT_REQUIRED', number: 6, terminal: false, interrupted: true },
    { state: 'TASK_STATE_REJECTED', number: 7, terminal: true, interrupted: false },
    { state: 'TASK_STATE_AUTH_REQUIRED', number: 8, terminal: false, interrupted: true },
  ])('$state = $number, terminal $terminal, interrupted $interrupted', ({ state, number, terminal, interrupted }) => {
    expect(TASK_STATES[number]).toBe(state);
    expect(isTerminalState(state)).toBe(terminal);
    expect(isInterruptedState(state)).toBe(interrupted);
  });

  it('has nine values', () => {
    expect(TASK_STATES).toHaveLength(9);
  });
});

describe('Role (digest §0.2)', () => {
  it.each([
    ['ROLE_UNSPECIFIED', 0],
    ['ROLE_USER', 1],
    ['ROLE_AGENT', 2],
  ] as const)('%s = %i', (role, number) => {
    expect(ROLES[number]).toBe(role);
  });
});

describe('constants', () => {
  it('protocol version and bindings (digest §2.1, §4.1)', () => {
    expect(PROTOCOL_VERSION).toBe('1.0');
    expect(PROTOCOL_BINDINGS).toEqual({ jsonRpc: 'JSONRPC', rest: 'HTTP+JSON' });
  });
});
