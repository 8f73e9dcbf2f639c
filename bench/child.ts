import type { Server } from 'node:http';
import type { CaseData } from './cases.ts';

/** Messages a server process sends to bench/run.ts over IPC. */
export type ChildMessage =
  | { type: 'ready'; port: number; data: CaseData }
  | { type: 'error'; message: string };

export interface StartedServer {
  port: number;
  data: CaseData;
  close(): Promise<void>;
}

export function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the server is not listening on TCP');
  return address.port;
}

/** The server-process side of the protocol: start, report the port, stop on SIGTERM. */
export function runChild(start: () => Promise<StartedServer>): void {
  const send = process.send?.bind(process);
  if (!send) {
    process.stderr.write('This is a benchmark server process; run `npm run bench` instead.\n');
    process.exit(2);
  }
  // Without the parent nothing would ever stop this process.
  process.on('disconnect', () => process.exit(0));
  let started: StartedServer | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const close = started ? started.close() : Promise.resolve();
    close.then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error while closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  start().then(
    (server) => {
      started = server;
      const message: ChildMessage = { type: 'ready', port: server.port, data: server.data };
      send(message);
    },
    (error: unknown) => {
      const message: ChildMessage = {
        type: 'error',
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      };
      send(message, () => process.exit(1));
    },
  );
}
