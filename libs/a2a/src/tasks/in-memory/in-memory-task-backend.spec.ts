import { describeTaskBackendContract } from '../../testing/task-backend.contract.js';
import { DEFAULT_RETENTION } from '../retention.js';
import { InMemoryTaskBackend } from './in-memory-task-backend.js';

const BUDGET = { maxBytes: 1024 * 1024, maxBytesPerCaller: 64 * 1024 };

describeTaskBackendContract(
  'InMemoryTaskBackend',
  async () => {
    const backend = new InMemoryTaskBackend({ ...DEFAULT_RETENTION, budget: BUDGET });
    return { backend, close: () => backend.close() };
  },
  { budgetPerCaller: BUDGET.maxBytesPerCaller },
);
