import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { textView } from '../report/chat-view.js';
import { withDeadline } from '../timing.js';

/** How long one progress edit may take before the next one (or the outcome) is sent anyway. */
export const PROGRESS_EDIT_DEADLINE_MS = 10_000;

export interface ProgressNotes {
  add(line: string): void;
  /** Stops further edits and waits (bounded) for the one in flight. */
  close(): Promise<void>;
}

/**
 * Progress never blocks an action: a hung chat edit once held a defragmentation for 201 s between
 * its quorum guard and the call, so the guard was stale. Each step is shown in order under `header`,
 * after the previous edit or its deadline, and nothing in the action waits for it; a failed edit is
 * only a missed progress line. Used by a button's run and by a maintenance window's.
 */
export function createProgressNotes(opts: {
  chat: Pick<ChatAdapter, 'update'>;
  ref: MessageRef;
  header: string;
  actor: string;
  logger: Logger;
}): ProgressNotes {
  const steps: string[] = [];
  let closed = false;
  let last: Promise<unknown> = Promise.resolve();
  const edit = () =>
    closed
      ? undefined
      : opts.chat
          .update(
            opts.ref,
            textView([opts.header, ...steps.map((s) => `• ${s}`)], 'info', { actor: opts.actor }),
          )
          .catch((err: unknown) =>
            opts.logger.warn({ err: describeError(err) }, 'remediation progress update failed'),
          );
  return {
    add(line) {
      steps.push(line);
      last = last.then(() =>
        withDeadline(Promise.resolve(edit()), PROGRESS_EDIT_DEADLINE_MS, () => undefined),
      );
    },
    async close() {
      closed = true;
      await withDeadline(last, PROGRESS_EDIT_DEADLINE_MS, () => undefined);
    },
  };
}
