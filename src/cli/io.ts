import type { Readable, Writable } from 'node:stream';
import type { DiagnosisReport } from '../contracts/report-json.js';

/**
 * Exit codes (DESIGN.md): 0 healthy, 1 degraded or critical, 2 usage or config error, 3 could not
 * check (etcd-doctor's own access failed: TLS, credentials, URLs, network path; status `unknown`).
 */
export const EXIT = { healthy: 0, unhealthy: 1, usage: 2, couldNotCheck: 3 } as const;

export interface CliIo {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** For the process roles (bot, worker, serve): the shell chat reads stdin and writes stdout. */
  stdin?: Readable;
  stdoutStream?: Writable;
  /** stdin is a terminal. */
  interactive?: boolean;
  /** Starts listening for SIGINT/SIGTERM; the signal aborts on either, and the roles shut down. */
  shutdownSignal?: () => AbortSignal;
}

export function exitCodeFor(report: DiagnosisReport): number {
  if (report.status === 'healthy') return EXIT.healthy;
  if (report.status === 'unknown') return EXIT.couldNotCheck;
  return EXIT.unhealthy;
}
