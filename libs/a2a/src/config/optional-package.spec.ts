import { describe, expect, it } from '@jest/globals';
import { rejectionOf } from '../testing/thrown.js';
import { A2AConfigurationError } from './a2a-configuration.error.js';
import { importOptionalPackages, missingPackages, missingPackagesProblem } from './optional-package.js';

const ABSENT = 'nestjs-a2a-no-such-package';

describe('optional packages', () => {
  it('tells installed packages from absent ones', async () => {
    expect(await missingPackages(['ioredis', ABSENT, 'bullmq'])).toEqual([ABSENT]);
  });

  it('says how to install what is missing', () => {
    expect(missingPackagesProblem('redis', ['ioredis'])).toBe('redis: needs ioredis, which is not installed: npm install ioredis');
    expect(missingPackagesProblem('push', ['bullmq', 'ioredis'])).toBe('push: needs bullmq and ioredis, which are not installed: npm install bullmq ioredis');
  });

  it('loads them in order, or fails with one configuration error naming every missing one', async () => {
    const [ioredis] = await importOptionalPackages<[typeof import('ioredis')]>('redis', ['ioredis']);
    expect(typeof ioredis.Redis).toBe('function');
    const error = await rejectionOf(importOptionalPackages('push', [ABSENT, 'ioredis', `${ABSENT}-2`]), A2AConfigurationError);
    expect(error.problems).toEqual([`push: needs ${ABSENT} and ${ABSENT}-2, which are not installed: npm install ${ABSENT} ${ABSENT}-2`]);
  });
});
