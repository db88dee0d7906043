/**
 * Byte budgets of stored tasks, overall and per caller, as every backend with budgets states them:
 * the options, their defaults, and the refusal a caller gets when a budget is used up.
 */
import { ResourceExhaustedError } from '../protocol/errors.js';

/** @publicApi */
export interface StorageBudgetOptions {
  /** Bytes of stored tasks (their JSON, estimated) kept at most, overall. */
  maxBytes: number;
  /** Bytes of stored tasks kept at most per caller (tenant and subject). */
  maxBytesPerCaller: number;
}

export const DEFAULT_STORAGE_BUDGET: StorageBudgetOptions = { maxBytes: 256 * 1024 * 1024, maxBytesPerCaller: 64 * 1024 * 1024 };

/** How long a refused caller is told to wait: running tasks finish, interrupted ones expire. */
export const BUDGET_RETRY_AFTER_SECONDS = 30;

/** The refusal a caller gets when its task cannot be stored: 429 with `Retry-After`. */
export function storageBudgetExhausted(): ResourceExhaustedError {
  return new ResourceExhaustedError('Too much task data is stored for this caller or this server; try again later', {
    retryAfterSeconds: String(BUDGET_RETRY_AFTER_SECONDS),
  });
}
