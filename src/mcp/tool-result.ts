import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { describeError, isEtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type SummarizableReport, summarizeReport } from './summarize-report.js';

/** What the SDK hands every tool handler: the request's AbortSignal, progress token, notifications. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A structured result, its short summary first, then the same object serialized: the MCP spec asks
 * a tool with structured content to repeat it as JSON text, for clients that only read `content`.
 */
export function structuredResult(summary: string, data: object): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(data) },
    ],
    structuredContent: { ...data },
  };
}

/** A report as `--json` prints it, led by its root cause and member. */
export function reportResult(report: SummarizableReport): CallToolResult {
  return structuredResult(summarizeReport(report), report);
}

/** A tool error: the model reads `text` and can act on it (another cluster name, Redis is down). */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * Runs one tool call: logs its name, duration and outcome (to stderr: stdout belongs to the
 * protocol over stdio), turns etcd-doctor's own errors into tool errors worded for a human, and
 * reports a call the client cancelled (the SDK sends nothing back for it).
 */
export async function runTool(
  tool: string,
  extra: ToolExtra,
  logger: Logger,
  work: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const result = await work();
    logger.info({ tool, durationMs: took(), isError: result.isError === true }, 'mcp tool call');
    return result;
  } catch (err) {
    if (extra.signal.aborted) {
      logger.info({ tool, durationMs: took() }, 'mcp tool call cancelled by the client; its probes stopped');
      return toolError('cancelled');
    }
    if (!isEtcdDoctorError(err)) logger.error({ tool, err: describeError(err) }, 'mcp tool call failed');
    else logger.info({ tool, durationMs: took(), code: err.code }, 'mcp tool call refused');
    return toolError(describeError(err));
  }
}

/**
 * Progress notifications for a client that asked for them (a `progressToken`): probes done of
 * total, sent as probes finish. `done()` is awaited before the result goes out: it says the run is
 * complete (total of total) when the last probe's notification did not say so, so a client's
 * progress never stops short of the answer it then receives.
 */
export function progressOf(extra: ToolExtra):
  | {
      onProgress: (p: { done: number; total: number; probe?: { name: string }; note?: string }) => void;
      done: () => Promise<void>;
    }
  | undefined {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let last = { done: 0, total: 0 };
  // Sends go out in order; the result waits for the last one, so it never overtakes a notification.
  let sending: Promise<void> = Promise.resolve();
  const send = (progress: number, total: number, message: string) => {
    sending = extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, total, message },
      })
      .catch(() => undefined);
    return sending;
  };
  return {
    onProgress: ({ done, total, probe, note }) => {
      last = { done, total };
      void send(done, total, probe ? `${probe.name} done` : (note ?? 'running'));
    },
    done: async () => {
      await sending;
      if (last.total > 0 && last.done < last.total) await send(last.total, last.total, 'report ready');
    },
  };
}
