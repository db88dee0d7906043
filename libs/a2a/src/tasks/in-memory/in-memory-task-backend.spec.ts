import { describeTaskBackendContract } from '../../testing/task-backend.contract.js';
import { InMemoryTaskBackend } from './in-memory-task-backend.js';

describeTaskBackendContract('InMemoryTaskBackend', async () => {
  const backend = new InMemoryTaskBackend();
  return { backend, close: () => backend.close() };
});
