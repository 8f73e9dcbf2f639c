import { runTestQueue, TIERS } from '../support/file-queue.ts';

runTestQueue(TIERS.all);
