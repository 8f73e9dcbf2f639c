import { RETIRE_SERVER_TOKEN_JOB, retireServerToken } from './integrators/service.ts';
import type { JobHandler } from './platform/jobs/queue.ts';

/** Every job kind the service knows and its handler. Workers claim only kinds listed here. */
export function jobHandlers(): Record<string, JobHandler> {
  return {
    [RETIRE_SERVER_TOKEN_JOB]: retireServerToken,
  };
}
